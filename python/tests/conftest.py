"""Shared fixtures of the facedown Python tests."""

import pytest

import facedown


@pytest.fixture(scope="session")
def library():
    """The built-in protocols, by name."""
    return {p["name"]: p for p in facedown.protocols()}
