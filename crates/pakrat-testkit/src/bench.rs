//! Helpers shared by the bench binaries (Linux `/proc` readings).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// CPU seconds (user + system) from a `/proc/.../stat` file (100 ticks/s),
/// e.g. `/proc/self/stat` or `/proc/thread-self/stat`; 0 where unreadable.
pub fn cpu_secs(stat: &str) -> f64 {
    let s = std::fs::read_to_string(stat).unwrap_or_default();
    let rest = s.rsplit_once(')').map(|x| x.1).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the command name: state is field 3, utime 14, stime 15.
    let t = |i: usize| {
        f.get(i - 3)
            .and_then(|x| x.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (t(14) + t(15)) / 100.0
}

/// A `kB` field of `/proc/self/status` (`"RssAnon:"`, `"VmHWM:"`), in KiB.
pub fn status_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|r| r.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Sample `RssAnon` every 5 ms until the flag is set; the thread returns
/// the peak in KiB.
pub fn anon_sampler() -> (Arc<AtomicBool>, JoinHandle<u64>) {
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let h = std::thread::spawn(move || {
        let mut peak = 0;
        while !s2.load(Ordering::Relaxed) {
            peak = peak.max(status_kib("RssAnon:"));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        peak.max(status_kib("RssAnon:"))
    });
    (stop, h)
}

/// Peak resident set of this process, split as `/proc/self/status` splits
/// it, in KiB: anonymous memory (`RssAnon`: heap, stacks) and file-backed
/// pages (`RssFile`: the mapped inputs and the binary).
#[derive(Clone, Copy, Debug, Default)]
pub struct RssPeak {
    /// Peak `RssAnon`.
    pub anon: u64,
    /// Peak `RssFile`.
    pub file: u64,
}

/// Sample `RssAnon` and `RssFile` every 5 ms until the flag is set; the
/// thread returns each one's peak ([`RssPeak`]). `VmHWM` (see
/// [`status_kib`]) gives the exact peak of their sum.
pub fn rss_sampler() -> (Arc<AtomicBool>, JoinHandle<RssPeak>) {
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let h = std::thread::spawn(move || {
        let mut peak = RssPeak::default();
        loop {
            let done = s2.load(Ordering::Relaxed);
            peak.anon = peak.anon.max(status_kib("RssAnon:"));
            peak.file = peak.file.max(status_kib("RssFile:"));
            if done {
                return peak;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    });
    (stop, h)
}
