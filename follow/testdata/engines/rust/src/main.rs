//! What mcplogd's engine tests make a Rust game print: tracing's fmt lines
//! at every level, in spans, with fields and a multi-line message (as Bevy
//! logs), then, with the argument "panic", a panic in main; with
//! "thread", a panic in a named thread first; "joined", only one that main unwraps.
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
    info!("done");
}
