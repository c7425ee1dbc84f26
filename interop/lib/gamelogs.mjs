// A store built the way users get one: `mcplogd serve --follow` of real game logs (the fixtures
// of follow/testdata), each file written whole only when the one before it has been read and
// stored. None of these logs carries timestamps, so each record's time is when the follower read
// it: the order of the writes is the order of the runs in time, whatever the machine's speed.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { interopDir, startServe, waitFor } from './harness.mjs';

/** The parser fixtures of the follow package. */
export const testdata = path.join(interopDir, '..', 'follow', 'testdata');

/**
 * Start `mcplogd serve --data DIR/data` following DIR/logs/FILE for every log, then write the
 * logs one after another, each once the server has stored the whole of the one before (its
 * follower's offset in /metrics is the file's size). A log is
 * `{parser, source, file, fixture, edit}`: fixture is a path under follow/testdata, and edit, if
 * given, turns the fixture's bytes into what the game writes. Answers startServe's handle.
 */
export async function followGameLogs(dir, logs) {
  const data = path.join(dir, 'data');
  const logDir = path.join(dir, 'logs');
  await mkdir(logDir, { recursive: true });
  // The files do not exist yet: serve follows a path that appears later, like tail -F.
  const follows = logs.flatMap((l) => ['--follow', `${l.parser}:${l.source}=${path.join(logDir, l.file)}`]);
  const srv = await startServe(data, follows);
  try {
    for (const l of logs) {
      let bytes = await readFile(path.join(testdata, l.fixture));
      if (l.edit) bytes = Buffer.from(l.edit(bytes));
      await writeFile(path.join(logDir, l.file), bytes);
      // Unity holds an entry until the next one or a quiet second decides it: allow for it.
      await waitFor(`follower ${l.source} to store ${bytes.length} bytes of ${l.fixture}`,
        async () => (await followerOffset(srv, l.source)) === bytes.length, { timeout: 30_000, interval: 50 });
    }
  } catch (e) {
    await srv.stop();
    throw new Error(`${e.message}\n${srv.output()}`);
  }
  return srv;
}

/** The follower's bytes read and stored, from /metrics (mcplogd_follower_offset_bytes). */
async function followerOffset(srv, source) {
  const res = await fetch(`${srv.base}/metrics`, { headers: { Authorization: `Bearer ${srv.token}` } });
  if (!res.ok) throw new Error(`GET /metrics: HTTP ${res.status}`);
  const m = new RegExp(`^mcplogd_follower_offset_bytes\\{follower="${source}"\\} (\\d+)$`, 'm').exec(await res.text());
  return m ? Number(m[1]) : -1;
}

/**
 * Insert lines after the first line of text that starts with `after` (the fixture's own line
 * ending kept); for a flood of game output in the middle of a log.
 */
export function insertLines(text, after, lines) {
  const at = text.indexOf(after);
  if (at < 0) throw new Error(`insertLines: no line starting ${JSON.stringify(after)}`);
  const end = text.indexOf('\n', at) + 1;
  const eol = text[end - 2] === '\r' ? '\r\n' : '\n';
  return text.slice(0, end) + lines.map((l) => l + eol).join('') + text.slice(end);
}
