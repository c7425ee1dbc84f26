// A small game for mcplogd's runtime tests: game MODE [PREFIX], built with
// rustc -g.
//
// It ticks a few frames, logging "[INFO] msg" (with PREFIX "stamp", behind
// a timestamp and a padded level) on standard error; warns of a missing
// texture in every run; then, in frame 3, MODE "overflow" spawns waves
// without end deep in game code (main -> tick -> World::spawn ->
// World::spawn_wave): the stack overflows, Rust's handler says so and
// aborts. "ok" does not.
use std::time::{SystemTime, UNIX_EPOCH};

struct World {
    mode: String,
    stamped: bool,
    score: u64,
}

impl World {
    fn log(&self, level: &str, msg: &str) {
        if self.stamped {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
            let (s, ms) = (now.as_secs() % 86400, now.subsec_millis());
            eprintln!("2026-12-07 {:02}:{:02}:{:02},{:03} [{:<7}] {}", s / 3600, s / 60 % 60, s % 60, ms, level, msg);
        } else {
            eprintln!("[{}] {}", level, msg);
        }
    }

    #[allow(unconditional_recursion)]
    fn spawn_wave(&mut self, n: u64) -> u64 {
        let wave = [n; 64];
        self.spawn_wave(n + 1) + wave[(n % 64) as usize] // CRASH:overflow
    }

    fn spawn(&mut self, frame: u32) {
        if frame == 3 && self.mode == "overflow" {
            self.score += self.spawn_wave(0);
        }
    }

    fn tick(&mut self, frame: u32) {
        self.log("INFO", &format!("frame {}", frame));
        if frame == 1 {
            self.log("WARNING", "missing texture enemy.png, using the placeholder");
        }
        self.spawn(frame);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut w = World {
        mode: args.get(1).cloned().unwrap_or_else(|| "ok".into()),
        stamped: args.get(2).map(|p| p == "stamp").unwrap_or(false),
        score: 0,
    };
    w.log("INFO", &format!("starting in mode {}", w.mode));
    for frame in 1..=5 {
        w.tick(frame);
    }
    w.log("INFO", &format!("score {}", w.score));
}
