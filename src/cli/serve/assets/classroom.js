// What every room's script shares: calling the server's JSON endpoints and making elements.
"use strict";

const $ = (id) => document.getElementById(id);

// Calls an endpoint; a refusal is thrown as its `error` object ({message, …}).
async function api(method, path, body) {
  const init = { method };
  if (body !== undefined) {
    init.body = body;
    init.headers = { "Content-Type": "text/plain; charset=utf-8" };
  }
  const response = await fetch(path, init);
  const doc = await response.json();
  if (!response.ok) throw doc.error;
  return doc;
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

// Calls an endpoint and shows a refusal in the page's error box; null when refused.
async function answer(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (err) {
    showError(err);
    return null;
  }
}
