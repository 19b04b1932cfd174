#!/bin/bash
# bench/criteria28.sh run several times in a row, and each criterion's
# figures side by side: every round's, their median, and how many rounds
# met the target.  On this shared machine one 2-thread figure moves by
# 10-30% from run to run (bench/README.md), so a single run says little
# about a criterion near its target; the rounds show the spread.
#
# usage: bench/criteria28_rounds.sh --rounds N --out DIR [criteria28.sh's
#                                   other arguments: --column, --pile, ...]
#
# Round k writes DIR/round-k/ (criteria28.sh's --out); --million, when
# given, is passed to the first round only (the 10^6 step is minutes
# long).  Writes DIR/rounds.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=3 OUT=bench-rounds ARGS=() MILLION=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds|--out|--million)
      [ $# -ge 2 ] || { echo "criteria28_rounds: $1 needs a value" >&2; exit 2; } ;;
  esac
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --million) MILLION=(--million "$2"); shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
case "$ROUNDS" in ''|*[!0-9]*|0) echo "criteria28_rounds: --rounds needs a positive count" >&2; exit 2 ;; esac
mkdir -p "$OUT"
for k in $(seq 1 "$ROUNDS"); do
  extra=()
  [ "$k" = 1 ] && extra=("${MILLION[@]}")
  bash "$HERE/criteria28.sh" "${ARGS[@]}" "${extra[@]}" --out "$OUT/round-$k" > "$OUT/round-$k.log" 2>&1 ||
    { echo "criteria28_rounds: round $k failed (see $OUT/round-$k.log)" >&2; exit 1; }
done
# the rows of every round's table, by criterion: numeric figures get a
# median and a count of rounds met; others (the 10^6 step) are listed
{
  echo "# bench/criteria28_rounds.sh $(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS rounds, fricon $(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null)"
  echo
  for k in $(seq 1 "$ROUNDS"); do cat "$OUT/round-$k/criteria.txt"; done |
    awk -F'|' '
      NF >= 5 && $2 !~ /criterion/ && $2 !~ /^-+$/ {
        name = $2; gsub(/^ +| +$/, "", name); v = $3; gsub(/^ +| +$/, "", v)
        t = $4; gsub(/^ +| +$/, "", t); m = $5; gsub(/^ +| +$/, "", m)
        if (!(name in seen)) { seen[name] = ++n; names[n] = name; target[name] = t }
        vals[name] = vals[name] (vals[name] == "" ? "" : " / ") v
        rows[name]++
        if (m == "yes") met[name]++
        if (v ~ /^[0-9.e+-]+$/) num[name, ++cnt[name]] = v
      }
      END {
        print "| criterion | rounds | median | target | rounds met |"
        print "|---|---|---:|---:|---:|"
        for (i = 1; i <= n; i++) {
          k = names[i]; c = cnt[k] + 0; med = "-"
          if (c > 0) {
            for (a = 1; a <= c; a++) x[a] = num[k, a]
            for (a = 2; a <= c; a++) for (b = a; b > 1 && x[b - 1] > x[b]; b--) { y = x[b]; x[b] = x[b - 1]; x[b - 1] = y }
            med = c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2
          }
          printf "| %s | %s | %s | %s | %d of %d |\n", k, vals[k], med, target[k], met[k] + 0, rows[k]
        }
      }'
} > "$OUT/rounds.txt"
cat "$OUT/rounds.txt"
