// A small game for mcplogd's runtime tests: node game.js MODE [PREFIX].
//
// It ticks a few frames from a setInterval loop, logging with console.info
// and console.warn or, with PREFIX "stamp", behind a timestamp and a padded
// level, an uncaught exception's stack included (an "uncaughtException"
// handler); prints a caught error with console.error (its stack) in every
// run, a missing texture; then, in frame 3, MODE "type" reads a property of
// undefined deep in game code (the interval -> tick -> World.spawn ->
// World.spawnEnemy), which nothing catches: Node prints the source line,
// a caret, the TypeError and its frames, then its version. "json" parses a
// save that is no JSON in World.spawnEnemy: Node prints "<anonymous_script>:1"
// in place of a file, the text and a caret, then the SyntaxError whose first
// frame is V8's JSON.parse. "oom" spawns enemies until the heap is full
// (run it with NODE_OPTIONS=--max-old-space-size=32): V8 prints its fatal
// error and native frames, and aborts. "ok" does not crash.
'use strict';

const fs = require('fs');
const util = require('util');

const mode = process.argv[2] || 'ok';
const stamped = process.argv[3] === 'stamp';

function stamp(level) {
  const d = new Date();
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)} [${level.padEnd(7)}] `;
}

function log(level, msg) {
  if (stamped) {
    const text = typeof msg === 'string' ? msg : util.inspect(msg);
    for (const line of text.split('\n')) {
      process.stderr.write(stamp(level) + line + '\n');
    }
  } else if (level === 'INFO') {
    console.info(msg);
  } else if (level === 'WARNING') {
    console.warn(msg);
  } else {
    console.error(msg);
  }
}

if (stamped) {
  process.on('uncaughtException', (err) => {
    log('ERROR', err.stack);
    process.exit(1);
  });
}

class World {
  constructor() {
    this.sprites = { troll: { width: 32 } };
    this.enemies = [];
  }

  loadTexture(name) {
    try {
      fs.readFileSync(name);
    } catch (e) {
      log('ERROR', new Error(`missing texture ${name}, using the placeholder`, { cause: e.code }));
    }
  }

  spawnEnemy(kind) {
    while (mode === 'oom') {
      this.enemies.push(new Array(100000).fill(kind)); // CRASH:oom
    }
    if (mode === 'json') {
      this.save = JSON.parse('{orc: 1}'); // CRASH:json
    }
    const sprite = this.sprites[kind];
    const width = sprite.width; // CRASH:type
    this.enemies.push({ kind, width });
  }

  spawn(frame) {
    if (frame === 3 && mode !== 'ok') {
      this.spawnEnemy('orc');
    }
  }

  tick(frame) {
    log('INFO', `frame ${frame}`);
    if (frame === 1) {
      this.loadTexture('enemy.png');
    }
    this.spawn(frame);
  }
}

log('INFO', `starting in mode ${mode}`);
const world = new World();
let frame = 0;
const loop = setInterval(() => {
  frame++;
  world.tick(frame);
  if (frame === 5) {
    clearInterval(loop);
    log('INFO', 'shutting down');
  }
}, 5);
