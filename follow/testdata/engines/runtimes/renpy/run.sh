#!/bin/sh
# Runs the Ren'Py game for mcplogd's runtime tests: sh run.sh RENPY MODE PREFIX.
#
# Ren'Py writes its caches, log.txt and traceback.txt into the game's
# directory and its saves under $HOME/.renpy, so each run gets a copy of
# the game and a home of its own. MODE and PREFIX reach the game's scripts
# in GAME_MODE and GAME_PREFIX. MODE "parse" adds a script with an error in
# it and runs Ren'Py's "compile" command, which reports the error and exits
# (Ren'Py's own run shows it on its error screen and waits).
set -e
renpy=$1 mode=$2 prefix=$3
here=$(cd "$(dirname "$0")" && pwd)
run=$(mktemp -d)
trap 'rm -rf "$run"' EXIT
cp -R "$here/game" "$run/game"
command=run
if [ "$mode" = parse ]; then
	cp "$here/parse.rpy.txt" "$run/game/parse.rpy"
	command=compile
fi
# The editor Ren'Py opens traceback.txt in: one that does nothing.
export RENPY_EDIT_PY=/usr/share/games/renpy/launcher/None.edit.py
HOME=$run GAME_MODE=$mode GAME_PREFIX=$prefix "$renpy" "$run" "$command"
