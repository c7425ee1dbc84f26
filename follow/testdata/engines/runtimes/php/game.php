<?php
// A small game for mcplogd's runtime tests: php game.php MODE [PREFIX].
//
// It ticks five frames, logging "INFO: msg" or, with PREFIX "stamp",
// behind a timestamp and a padded level; warns of a missing texture in
// every run; then, in frame 3, deep in game code (tick -> World->spawn ->
// World->spawnEnemy), MODE "uncaught" throws a RuntimeException nothing
// catches, "null" calls a method of null, "parse" includes a level file
// that does not parse, "display" throws as "uncaught" with display_errors
// on, so that PHP shows the error on standard output after logging it to
// standard error; "ok" does not crash. PHP's CLI logs its errors to
// standard error ("PHP Fatal error:  ...").
ini_set('log_errors', '1');
ini_set('display_errors', '0');
ini_set('html_errors', '0');
ini_set('error_log', '');

$MODE = $argv[1] ?? 'ok';
$STAMPED = ($argv[2] ?? '') === 'stamp';

function logline($level, $msg) {
    global $STAMPED;
    if ($STAMPED) {
        $t = microtime(true);
        fwrite(STDERR, sprintf("%s,%03d [%-7s] %s\n", date('Y-m-d H:i:s', (int)$t), (int)(($t - floor($t)) * 1000), $level, $msg));
    } else {
        fwrite(STDERR, ($level === 'WARNING' ? 'WARN' : $level) . ": $msg\n");
    }
}

class World {
    private $spawnPoints = ['troll' => 4];
    private $boss = null;
    private $enemies = 0;

    function loadTexture($name) {
        if (!is_readable($name)) {
            logline('WARNING', "missing texture $name, using the placeholder");
        }
    }

    function spawnEnemy($kind) {
        global $MODE;
        if ($MODE === 'null') {
            $this->boss->heal(10); // CRASH:null
        } elseif ($MODE === 'parse') {
            include __DIR__ . '/levels/broken.php';
        } elseif (!isset($this->spawnPoints[$kind]) && $MODE !== 'ok') {
            throw new RuntimeException("no spawn point for $kind"); // CRASH:uncaught
        }
        $this->enemies++;
    }

    function spawn($frame) {
        if ($frame === 3) {
            $this->spawnEnemy('orc');
        }
    }
}

function tick($world, $frame) {
    logline('INFO', "frame $frame");
    if ($frame === 1) {
        $world->loadTexture('enemy.png');
    }
    $world->spawn($frame);
}

if ($MODE === 'display') {
    ini_set('display_errors', 'stdout');
    $MODE = 'uncaught';
}
logline('INFO', "starting in mode $MODE");
$world = new World();
for ($frame = 1; $frame <= 5; $frame++) {
    tick($world, $frame);
}
logline('INFO', 'shutting down');
