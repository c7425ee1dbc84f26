// A small game for mcplogd's runtime tests: game MODE [PREFIX].
//
// It ticks five frames, logging "INFO: msg" or, with PREFIX "stamp",
// behind a timestamp and a padded level; warns of a missing texture in
// every run; then, in frame 3, deep in game code (tick -> spawn ->
// spawnEnemy), MODE "index" reads a wave past the end of its array (D's
// runtime throws its bounds error), "throw" throws an Exception nothing
// catches; "ok" does not crash. D's runtime prints the exception, where it
// was thrown and, built with -g, the frames, and exits with status 1.
import std.datetime.systime : Clock;
import std.file : exists;
import std.format : format;
import std.stdio : stderr;

string mode = "ok";
bool stamped;
int[] waves = [3, 5, 8];

void log(string level, string msg)
{
    if (stamped)
    {
        auto t = Clock.currTime();
        stderr.writefln("%04d-%02d-%02d %02d:%02d:%02d,%03d [%-7s] %s", t.year, t.month, t.day, t.hour, t.minute,
            t.second, t.fracSecs.total!"msecs", level, msg);
    }
    else
        stderr.writefln("%s: %s", level == "WARNING" ? "WARN" : level, msg);
    stderr.flush();
}

void loadTexture(string name)
{
    if (!exists(name))
        log("WARNING", "missing texture " ~ name ~ ", using the placeholder");
}

void spawnEnemy(string kind, size_t wave)
{
    if (mode == "index")
        log("INFO", format("wave of %d", waves[wave])); // CRASH:index
    else if (mode == "throw")
        throw new Exception("no spawn point for " ~ kind); // CRASH:throw
}

void spawn(int frame)
{
    if (frame == 3)
        spawnEnemy("orc", waves.length);
}

void tick(int frame)
{
    log("INFO", format("frame %d", frame));
    if (frame == 1)
        loadTexture("enemy.png");
    spawn(frame);
}

void main(string[] args)
{
    if (args.length > 1)
        mode = args[1];
    stamped = args.length > 2 && args[2] == "stamp";
    log("INFO", "starting in mode " ~ mode);
    foreach (frame; 1 .. 6)
        tick(frame);
    log("INFO", "shutting down");
}
