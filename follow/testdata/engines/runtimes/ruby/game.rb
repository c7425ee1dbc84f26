# A small game for mcplogd's runtime tests: ruby game.rb MODE [PREFIX].
#
# It ticks five frames, logging with puts and Ruby's Logger ("E, [time
# #pid] ERROR -- : ...") or, with PREFIX "stamp", behind a timestamp and a
# padded level, an uncaught exception's report included (an at_exit
# handler logs it); logs a handled error in every run, a missing texture
# (its message and class); then, in
# frame 3, MODE "nomethod" calls a method of nil deep in game code (tick ->
# World#spawn -> World#spawn_enemy), which nothing rescues: Ruby prints
# where, the message and class, the line of code with a caret under the
# call, then the frames. "thread" does the same in a thread the game
# joins: Ruby reports the thread's death, then the join raises it again,
# uncaught. "ok" does not crash.
require 'logger'

$stdout.sync = true
$stderr.sync = true

MODE = ARGV[0] || 'ok'
STAMPED = ARGV[1] == 'stamp'
LOGGER = Logger.new($stderr)

def stamp(level)
  t = Time.now
  format('%s,%03d [%-7s] ', t.strftime('%Y-%m-%d %H:%M:%S'), t.usec / 1000, level)
end

def log(level, msg)
  if STAMPED
    msg.to_s.each_line { |l| $stderr.write(stamp(level) + l.chomp + "\n") }
  elsif level == 'INFO'
    puts msg
  else
    LOGGER.add(Logger.const_get(level), msg)
  end
end

if STAMPED
  at_exit do
    if $! && !$!.is_a?(SystemExit)
      log('ERROR', $!.full_message(highlight: false))
      exit!(1)
    end
  end
end

class World
  def initialize
    @sprites = { 'troll' => { width: 32 } }
    @enemies = []
  end

  def load_texture(name)
    File.read(name)
  rescue SystemCallError => e
    log('ERROR', "missing texture #{name}, using the placeholder (#{e.class})")
  end

  def spawn_enemy(kind)
    sprite = @sprites[kind]
    width = sprite.fetch(:width) # CRASH:nomethod
    @enemies << { kind: kind, width: width }
  end

  def spawn(frame)
    return unless frame == 3 && MODE != 'ok'

    if MODE == 'thread'
      Thread.new { spawn_enemy('orc') }.join
    else
      spawn_enemy('orc')
    end
  end

  def tick(frame)
    log('INFO', "frame #{frame}")
    load_texture('enemy.png') if frame == 1
    spawn(frame)
  end
end

log('INFO', "starting in mode #{MODE}")
world = World.new
(1..5).each do |frame|
  world.tick(frame)
  sleep 0.005
end
log('INFO', 'shutting down')
