//! What mcplogd's engine tests make a Rust game print: tracing's fmt lines
//! at every level, in spans, with fields and a multi-line message (as Bevy
//! logs), then, with the argument "panic", a panic in main; with
//! "thread", a panic in a named thread first; "joined", only one that main unwraps; "system", below.
use tracing::{debug, error, info, info_span, trace, warn};

fn main() {
    tracing_subscriber::fmt().with_max_level(tracing::Level::TRACE).init();
    let mode = std::env::args().nth(1).unwrap_or_default();
    trace!(target: "bevy_ecs::schedule", "schedule built");
    debug!(target: "bevy_app::plugin", plugin = "RenderPlugin", "added plugin");
    info!(target: "bevy_render::renderer", adapter = "llvmpipe", "AdapterInfo {{ name: \"llvmpipe\", backend: Vulkan }}");
    warn!(path = "textures/missing.png", "asset not found");
    let frame = info_span!("frame", n = 7);
    let _enter = frame.enter();
    error!(code = 42, "failed to save");
    info!("inventory:\nsword\nshield");
    if mode == "thread" {
        let worker = std::thread::Builder::new().name("worker".into()).spawn(|| {
            let v: Vec<u32> = Vec::new();
            v[3]
        });
        let _ = worker.unwrap().join();
    }
    if mode == "panic" || mode == "thread" {
        let save: Option<&str> = None;
        save.expect("no save slot");
    }
    if mode == "joined" {
        let worker = std::thread::Builder::new().name("worker".into()).spawn(|| {
            let v: Vec<u32> = Vec::new();
            v[3]
        });
        worker.unwrap().join().unwrap();
    }
    if mode == "system" {
        // A Bevy system's panic: on a task-pool thread, then the lines Bevy's
        // executors print (the system's, then the main schedule's) as they pass
        // it on, and the panic resumed on main, which ends the program.
        let system = std::thread::Builder::new().name("Compute Task Pool (1)".into()).spawn(|| {
            let hp: u32 = 5;
            hp.checked_sub(9).expect("damage larger than remaining health")
        });
        if let Err(payload) = system.unwrap().join() {
            eprintln!("Encountered a panic in system `arena::combat::apply_damage_system`!");
            eprintln!("Encountered a panic in system `bevy_app::main_schedule::Main::run_main`!");
            std::panic::resume_unwind(payload);
        }
    }
    info!("done");
}
