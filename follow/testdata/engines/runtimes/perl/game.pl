# A small game for mcplogd's runtime tests: perl game.pl MODE [PREFIX].
#
# It ticks five frames, logging "INFO: msg" or, with PREFIX "stamp",
# behind a timestamp and a padded level; warns of a missing texture in
# every run; then, in frame 3, deep in game code (tick -> spawn ->
# spawn_enemy), MODE "die" dies of a missing spawn point (Perl adds where:
# "at game.pl line N."), "confess" does so with Carp's confess (the callers
# follow), "method" calls a method of undef (Perl's own error); "ok" does
# not crash. Perl exits with status 255.
use strict;
use warnings;
use Carp;
use POSIX qw(strftime);
use Time::HiRes qw(time);

$| = 1;
my $MODE = $ARGV[0] // 'ok';
my $STAMPED = ($ARGV[1] // '') eq 'stamp';

sub logline {
    my ($level, $msg) = @_;
    if ($STAMPED) {
        my $t = time;
        printf STDERR "%s,%03d [%-7s] %s\n", strftime('%Y-%m-%d %H:%M:%S', localtime($t)), int(($t - int($t)) * 1000), $level, $msg;
    } else {
        printf STDERR "%s: %s\n", $level eq 'WARNING' ? 'WARN' : $level, $msg;
    }
}

my %spawn_points = (troll => 4);
my $boss;

sub load_texture {
    my ($name) = @_;
    logline('WARNING', "missing texture $name, using the placeholder") unless -r $name;
}

sub spawn_enemy {
    my ($kind) = @_;
    if ($MODE eq 'die') {
        die "no spawn point for $kind" unless $spawn_points{$kind}; # CRASH:die
    } elsif ($MODE eq 'confess') {
        confess "no spawn point for $kind" unless $spawn_points{$kind}; # CRASH:confess
    } elsif ($MODE eq 'method') {
        $boss->heal(10); # CRASH:method
    }
}

sub spawn {
    my ($frame) = @_;
    spawn_enemy('orc') if $frame == 3;
}

sub tick {
    my ($frame) = @_;
    logline('INFO', "frame $frame");
    load_texture('enemy.png') if $frame == 1;
    spawn($frame);
}

logline('INFO', "starting in mode $MODE");
tick($_) for 1 .. 5;
logline('INFO', 'shutting down');
