#!/bin/bash
# pending-idle.sh BIN PORT: 20,000 operations started through the API and
# never completed (plus 20,000 lines) in a new data directory served by BIN
# on 127.0.0.1:PORT; then the CPU of 30 s idle, RSS after 150 s idle (Go
# gives memory back after its periodic GC), ten searches, and searches right
# after each of 20 completions.
set -e
BIN=$1; PORT=$2; D=$(mktemp -d)
$BIN serve --data $D --addr 127.0.0.1:$PORT >/dev/null 2>$D/err &
PID=$!
for i in $(seq 50); do [ -f $D/token ] && curl -sf http://127.0.0.1:$PORT/healthz >/dev/null && break; sleep 0.1; done
TOK=$(cat $D/token)
python3 - $PORT $TOK <<'PY'
import http.client, json, sys
port, tok = int(sys.argv[1]), sys.argv[2]
c = http.client.HTTPConnection("127.0.0.1", port)
h = {"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
for i in range(20000):
    c.request("POST", "/api/v1/operations", json.dumps({"tool": "run_lua", "arguments": {"code": "print(%d)" % i}}), h)
    r = c.getresponse(); r.read()
    assert r.status == 201, r.status
lines = "\n".join(json.dumps({"level": "info", "text": "frame %d rendered" % i}) for i in range(20000))
c.request("POST", "/api/v1/logs", lines, h); r = c.getresponse(); r.read(); assert r.status == 200, r.status
PY
curl -sf -H "Authorization: Bearer $TOK" http://127.0.0.1:$PORT/api/v1/info | python3 -c 'import json,sys; a=json.load(sys.stdin); print("records", a["records"], "ops", a["ops"])'
sleep 8
T0=$(awk '{print $14+$15}' /proc/$PID/stat)
sleep 30
T1=$(awk '{print $14+$15}' /proc/$PID/stat)
TCK=$(getconf CLK_TCK)
CPU=$(python3 -c "print('%.1f' % (100.0*($T1-$T0)/$TCK/30))")
sleep 120
RSS=$(awk '/VmRSS/{printf "%.0f MB", $2/1024}' /proc/$PID/status)
HWM=$(awk '/VmHWM/{printf "%.0f MB", $2/1024}' /proc/$PID/status)
S=""
for q in rendered "status:pending" "print" "frame AND 123" "level:error" rendered "status:pending" print run_lua "frame 1999*"; do
  t=$(curl -s -o /dev/null -w '%{time_total}' -G -H "Authorization: Bearer $TOK" --data-urlencode "q=$q" --data-urlencode limit=20 http://127.0.0.1:$PORT/api/v1/search)
  S="$S $t"
done
C=""
for id in $(seq 1 20); do # the operations are IDs 1 to 20000
  curl -s -o /dev/null -H "Authorization: Bearer $TOK" -d '{"status":"success"}' http://127.0.0.1:$PORT/api/v1/operations/$id/complete
  t=$(curl -s -o /dev/null -w '%{time_total}' -G -H "Authorization: Bearer $TOK" --data-urlencode "q=status:pending" --data-urlencode limit=20 http://127.0.0.1:$PORT/api/v1/search)
  C="$C $t"
done
echo "$(basename $BIN): idle CPU ${CPU}% of a core over 30 s; RSS $RSS (peak $HWM); search seconds:$S; after a completion:$C"
kill $PID; wait $PID 2>/dev/null || true
rm -rf $D
