# A small game for mcplogd's runtime tests: game MODE [PREFIX], built with
# nim c -d:debug -o:game game.nim.
#
# It ticks five frames, logging through std/logging's console logger
# ("INFO frame 1") or, with PREFIX "stamp", behind a timestamp and a padded
# level; logs a handled error in every run, a missing texture; then, in
# frame 3, MODE "index" indexes past the end of a seq deep in game code
# (tick -> spawn -> spawnEnemy), which nothing catches: Nim prints the
# frames, outermost first, then "Error: unhandled exception: … [IndexDefect]";
# "nil" writes through a nil ref: "SIGSEGV: Illegal storage access." after
# the frames, and the signal. "ok" does not crash.
import std/[logging, os, strutils, times]

type
  Enemy = ref object
    hp: int
  World = object
    spawnPoints: seq[int]
    boss: Enemy

let mode = if paramCount() > 0: paramStr(1) else: "ok"
let stamped = paramCount() > 1 and paramStr(2) == "stamp"
addHandler(newConsoleLogger(fmtStr = "$levelname ", useStderr = true))

proc log(level: Level, msg: string) =
  if stamped:
    let name = ($level)[3 .. ^1].toUpperAscii
    stderr.writeLine(now().format("yyyy-MM-dd HH:mm:ss,fff") & " [" & alignLeft(name, 7) & "] " & msg)
  else:
    logging.log(level, msg)

proc loadTexture(name: string) =
  try:
    discard readFile(name)
  except IOError:
    log(lvlError, "missing texture " & name & ", using the placeholder")

proc spawnEnemy(w: var World, i: int): int =
  if mode == "nil":
    w.boss.hp -= 1 # CRASH:nil
  result = w.spawnPoints[i] # CRASH:index

proc spawn(w: var World, frame: int) =
  if frame == 3 and mode != "ok":
    discard spawnEnemy(w, w.spawnPoints.len)

proc tick(w: var World, frame: int) =
  log(lvlInfo, "frame " & $frame)
  if frame == 1:
    loadTexture("enemy.png")
  spawn(w, frame)

log(lvlInfo, "starting in mode " & mode)
var w = World(spawnPoints: @[4, 8, 15])
for frame in 1 .. 5:
  tick(w, frame)
  sleep(5)
log(lvlInfo, "shutting down")
