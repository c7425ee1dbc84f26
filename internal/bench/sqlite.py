"""The SQLite baseline of mcplogd bench (internal/bench/sqlite.go).

Usage: python3 - LINES.ndjson DB BATCH NAME LEVEL WORD SAMPLES < sqlite.py

Reads and decodes the NDJSON lines mcplogd was sent, then times their
ingest into a WAL database with synchronous=FULL and an FTS5 index of text
and stack, BATCH lines per transaction (the inserts and commits only). Then
times the newest 50 of a name at a level and of a word, SAMPLES times each.
Prints one JSON object: {"lines", "ingestSeconds", "nameLevelMs", "wordMs",
"nameLevelHits", "wordHits", "version"}, the latencies as lists.
"""
import json
import sqlite3
import sys
import time

SCHEMA = """
CREATE TABLE logs(id INTEGER PRIMARY KEY, time TEXT, level TEXT NOT NULL, name TEXT,
                  source TEXT, text TEXT, stack TEXT, data TEXT);
CREATE INDEX logs_name_level ON logs(name, level, id);
CREATE VIRTUAL TABLE logs_fts USING fts5(text, stack, content='logs', content_rowid='id');
CREATE TRIGGER logs_ai AFTER INSERT ON logs BEGIN
  INSERT INTO logs_fts(rowid, text, stack) VALUES (new.id, new.text, new.stack);
END;
"""

COLUMNS = "id, time, level, name, source, text, stack, data"


def row(line):
    d = json.loads(line)
    data = d.get("data")
    if data is not None:
        data = json.dumps(data, separators=(",", ":"))
    return (d.get("time"), d["level"], d.get("name"), d.get("source"), d.get("text"), d.get("stack"), data)


def timed(con, sql, args, samples):
    took, hits = [], 0
    for _ in range(samples):
        t0 = time.perf_counter()
        hits = len(con.execute(sql, args).fetchall())
        took.append((time.perf_counter() - t0) * 1000)
    return took, hits


def main():
    src, db, batch, name, level, word, samples = sys.argv[1:8]
    batch, samples = int(batch), int(samples)
    with open(src, "rb") as f:
        lines = f.read().splitlines()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    con.executescript(SCHEMA)
    insert = "INSERT INTO logs(time, level, name, source, text, stack, data) VALUES (?, ?, ?, ?, ?, ?, ?)"
    # The lines are decoded before the clock starts: the baseline is SQLite
    # in process, with the records in hand, as mcplogd's clients have them.
    decoded = [row(line) for line in lines]
    t0 = time.perf_counter()
    for i in range(0, len(decoded), batch):
        rows = decoded[i:i + batch]
        con.execute("BEGIN")
        con.executemany(insert, rows)
        con.execute("COMMIT")
    ingest = time.perf_counter() - t0
    name_level, nl_hits = timed(con, "SELECT " + COLUMNS + " FROM logs WHERE name = ? AND level = ? ORDER BY id DESC LIMIT 50",
                                (name, level), samples)
    word_ms, w_hits = timed(con, "SELECT " + COLUMNS + " FROM logs WHERE id IN (SELECT rowid FROM logs_fts WHERE logs_fts MATCH ? "
                            "ORDER BY rowid DESC LIMIT 50) ORDER BY id DESC", ('"' + word + '"',), samples)
    con.close()
    json.dump({"lines": len(lines), "ingestSeconds": ingest, "nameLevelMs": name_level, "wordMs": word_ms,
               "nameLevelHits": nl_hits, "wordHits": w_hits, "version": sqlite3.sqlite_version}, sys.stdout)


if __name__ == "__main__":
    main()
