#!/usr/bin/env bash
# Times the protocol-search queries of docs/search.md, one line per query:
#   label | found length states exhausted | TIME wall-seconds user-seconds peak-RSS-kB
# Usage: cargo build --release && scripts/search_timings.sh [path/to/facedown]
set -u
F=${1:-target/release/facedown}
q() {
  local label="$1"; shift
  local out t
  out=$( { /usr/bin/time -f "TIME %e %U %M" timeout 300 "$F" cards search "$@" --max-memory 4G --json; } 2>&1 )
  t=$(echo "$out" | grep '^TIME' | tail -1)
  printf '%s | %s %s %s %s | %s\n' "$label" \
    "$(echo "$out" | grep -m1 '"found"' | tr -d ' ,')" \
    "$(echo "$out" | grep -m1 '"length"' | tr -d ' ,')" \
    "$(echo "$out" | grep -m1 '"states_explored"' | tr -d ' ,')" \
    "$(echo "$out" | grep -m1 '"exhausted"' | tr -d ' ,')" "$t"
}
D='♣♣♥♥'
q "xor4 committed L2 any" --deck $D --function xor --committed --max-steps 2 --shuffles any
for s in input-possibilistic output-possibilistic; do
  q "xor4 committed L2 any $s" --deck $D --function xor --committed --max-steps 2 --shuffles any --security $s
done
q "xor4 committed L4 cuts" --deck $D --function xor --committed --max-steps 4 --shuffles cuts
q "five-card trick L3 random-cuts" --deck ♣♣♥♥♥ --function and --max-steps 3 --shuffles random-cuts
q "mks12 and4 L4 closed" --deck $D --function and --max-steps 4 --shuffles closed
q "ms09 and6 committed L2 random-cuts" --deck ♣♣♣♥♥♥ --function and --committed --max-steps 2 --shuffles random-cuts --first
q "ms09 copy6 committed L2 random-cuts" --deck ♣♣♣♥♥♥ --function copy --committed --max-steps 2 --shuffles random-cuts --first
for L in 12 13; do q "and4 committed finite closed L$L" --deck $D --function and --committed --max-steps $L --shuffles closed; done
for s in uniform-closed random-cuts; do
  for L in 28 34; do q "and4 committed finite $s L$L" --deck $D --function and --committed --max-steps $L --shuffles $s; done
done
for L in 7 8; do q "and4 committed finite any L$L" --deck $D --function and --committed --max-steps $L --shuffles any; done
for L in 6 8; do q "and5 committed finite uniform-closed L$L" --deck ♣♣♣♥♥ --function and --committed --max-steps $L --shuffles uniform-closed; done
q "and5 committed finite closed L5" --deck ♣♣♣♥♥ --function and --committed --max-steps 5 --shuffles closed
q "lv and4 committed closed R8" --deck $D --function and --committed --max-steps 8 --shuffles closed --runtime las-vegas
for s in uniform-closed random-cuts; do
  for L in 30 34 40; do q "lv and4 committed $s R$L" --deck $D --function and --committed --max-steps $L --shuffles $s --runtime las-vegas; done
done
q "lv and4 committed cuts R50" --deck $D --function and --committed --max-steps 50 --shuffles cuts --runtime las-vegas
q "std xor committed L2 cuts" --deck 1234 --function xor --committed --max-steps 2 --shuffles cuts --single-card-turns
for L in 8 10; do q "std and committed finite closed L$L" --deck 1234 --function and --committed --max-steps $L --shuffles closed --single-card-turns; done
q "std lv and committed cuts R8" --deck 1234 --function and --committed --max-steps 8 --shuffles cuts --runtime las-vegas
q "ri18 lv and4 committed uniform S3" --deck $D --function and --committed --max-steps 10 --shuffles uniform --max-support 3 --runtime las-vegas --first
q "ahms21 lv and5 committed random-cuts" --deck ♣♣♣♥♥ --function and --committed --max-steps 12 --shuffles random-cuts --runtime las-vegas --first
# The questions of issue 21 (docs/search.md, "The literature's open questions").
for D in ♣♣♣♥♥ ♣♣♥♥♥; do
  for L in 4 6; do q "kwh15 and5 committed finite any L$L $D" --deck $D --function and --committed --max-steps $L --shuffles any; done
  q "kwh15 and5 committed finite uniform L4 $D" --deck $D --function and --committed --max-steps 4 --shuffles uniform
  q "kwh15 and5 committed finite uniform S3 L4 $D" --deck $D --function and --committed --max-steps 4 --shuffles uniform --max-support 3
done
for s in closed random-cuts uniform any; do
  q "xor3 six cards committed $s L4" --deck ♣♣♣♥♥♥ --function 01101001 --committed --max-steps 4 --shuffles $s
done
for s in uniform any; do
  q "and6 committed $s L4" --deck ♣♣♣♥♥♥ --function and --committed --max-steps 4 --shuffles $s
done
