//! Deterministic mutations of real files, and a harness that opens each one
//! under a panic catcher, a per-case time limit and an allocation budget.
//!
//! The mutation kinds (issue 6): truncations, bit flips, byte runs and
//! length-field overwrites. All positions come from a fixed-seed generator,
//! so a failure names a case that can be reproduced exactly.

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// SplitMix64: tiny, fixed, good enough to pick positions.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (0 when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// One mutated input.
#[derive(Clone, Debug)]
pub struct Mutation {
    /// What was done, e.g. `flip bit 3 at 0x1a2`.
    pub name: String,
    /// The mutated bytes.
    pub data: Vec<u8>,
}

/// Values written over 32-bit fields: the classic count/offset killers.
const EVIL_U32: [u32; 6] = [0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000, 0x0100_0000, 0, 1];

/// `count` deterministic mutations of `input` (seeded by `seed` and the
/// input length). Positions favour the start and end of the file, where
/// headers, trailers and tables live, but reach the whole file.
pub fn mutations(input: &[u8], seed: u64, count: usize) -> Vec<Mutation> {
    let mut rng = Rng::new(seed ^ (input.len() as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let len = input.len();
    let mut out = Vec::with_capacity(count);
    // Position biased to the first/last 512 bytes half of the time.
    let pick = |rng: &mut Rng| -> usize {
        if len == 0 {
            return 0;
        }
        match rng.below(4) {
            0 => rng.below(len.min(512)),
            1 => len - 1 - rng.below(len.min(512)),
            _ => rng.below(len),
        }
    };
    for i in 0..count {
        let mut data = input.to_vec();
        let name = match i % 4 {
            0 => {
                let at = match i / 4 {
                    0 => 0,
                    1 => len / 2,
                    2 => len.saturating_sub(1),
                    3 => len.saturating_sub(20),
                    _ => rng.below(len + 1),
                };
                data.truncate(at);
                format!("truncate to {at:#x}")
            }
            1 if len > 0 => {
                let at = pick(&mut rng);
                let bit = rng.below(8);
                data[at] ^= 1 << bit;
                format!("flip bit {bit} at {at:#x}")
            }
            2 if len > 0 => {
                let at = pick(&mut rng);
                let run = 1 + rng.below(64);
                let byte = [0x00, 0xFF, 0x7F, 0x80][rng.below(4)];
                let end = (at + run).min(len);
                data[at..end].fill(byte);
                format!("run of {:#04x} over {at:#x}..{end:#x}", byte)
            }
            _ if len >= 4 => {
                let at = pick(&mut rng).min(len - 4);
                let v = match rng.below(EVIL_U32.len() + 1) {
                    k if k < EVIL_U32.len() => EVIL_U32[k],
                    _ => (len as u32).wrapping_add(1 + rng.below(16) as u32),
                };
                data[at..at + 4].copy_from_slice(&v.to_le_bytes());
                format!("u32 {v:#x} written at {at:#x}")
            }
            _ => format!("unchanged (input of {len} bytes)"),
        };
        out.push(Mutation { name, data });
    }
    out
}

/// The overlap shapes (issue 32): records of a table that should each own
/// their bytes are pointed at the same ones. `fields` are the positions of
/// one field of each record (a block's offset, a whole block entry, an
/// entry's data offset...), `len` its size. Gives: the second record's
/// field copied from the first (a shared range), the last copied from the
/// first, and every record's copied from the first (N records over one
/// range: repeated blocks). Fields that do not fit in `input` are skipped.
pub fn overlap_mutations(input: &[u8], fields: &[usize], len: usize, what: &str) -> Vec<Mutation> {
    let fields: Vec<usize> = fields
        .iter()
        .copied()
        .filter(|&f| f.checked_add(len).is_some_and(|e| e <= input.len()))
        .collect();
    let (Some(&first), true) = (fields.first(), fields.len() >= 2) else {
        return Vec::new();
    };
    let src = input[first..first + len].to_vec();
    let with = |targets: &[usize], name: String| {
        let mut data = input.to_vec();
        for &t in targets {
            data[t..t + len].copy_from_slice(&src);
        }
        Mutation { name, data }
    };
    let last = fields[fields.len() - 1];
    let mut out = vec![with(
        &[fields[1]],
        format!("{what} 1 shares {what} 0's range"),
    )];
    if fields.len() > 2 {
        out.push(with(
            &[last],
            format!("{what} {} shares {what} 0's range", fields.len() - 1),
        ));
    }
    out.push(with(
        &fields[1..],
        format!("all {} {what}s share {what} 0's range", fields.len()),
    ));
    out
}

/// What the test is doing now, printed when [`CountingAlloc`] refuses a
/// request (the process aborts right after, so this is the only trace).
static LABEL: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// Name the case being run, for the message printed on a refused allocation.
pub fn set_label(label: &str) {
    if let Ok(mut l) = LABEL.lock() {
        l.clear();
        l.push_str(label);
    }
}

/// Print (without allocating) that `size` bytes were refused and the label.
fn report_refusal(size: usize) {
    use std::io::Write;
    let mut err = std::io::stderr();
    let mut buf = [0u8; 20];
    let mut n = size;
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let _ = err.write_all(b"\nCountingAlloc: refused a request of ");
    let _ = err.write_all(&buf[i..]);
    let _ = err.write_all(b" bytes during: ");
    if let Ok(l) = LABEL.try_lock() {
        let _ = err.write_all(l.as_bytes());
    }
    let _ = err.write_all(b"\n");
}

/// A global allocator that counts live bytes and the peak since the last
/// [`CountingAlloc::reset_peak`], and refuses (returns null for) any single
/// request above its limit so a runaway allocation fails fast instead of
/// exhausting the machine.
pub struct CountingAlloc {
    live: AtomicUsize,
    peak: AtomicUsize,
    limit: AtomicUsize,
    refused: AtomicBool,
}

impl CountingAlloc {
    /// A counter with no limit.
    pub const fn new() -> Self {
        CountingAlloc {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            limit: AtomicUsize::new(usize::MAX),
            refused: AtomicBool::new(false),
        }
    }

    /// Set the largest single allocation allowed.
    pub fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::SeqCst);
    }

    /// Bytes live now.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }

    /// Peak live bytes since the last reset.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    /// Start a new measurement.
    pub fn reset_peak(&self) {
        self.peak.store(self.live(), Ordering::SeqCst);
        self.refused.store(false, Ordering::SeqCst);
    }

    /// Whether a request was refused since the last reset.
    pub fn refused(&self) -> bool {
        self.refused.load(Ordering::SeqCst)
    }

    fn add(&self, n: usize) {
        let now = self.live.fetch_add(n, Ordering::SeqCst) + n;
        self.peak.fetch_max(now, Ordering::SeqCst);
    }
}

impl Default for CountingAlloc {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > self.limit.load(Ordering::Relaxed) {
            self.refused.store(true, Ordering::SeqCst);
            report_refusal(layout.size());
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.add(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::SeqCst);
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > self.limit.load(Ordering::Relaxed) {
            self.refused.store(true, Ordering::SeqCst);
            report_refusal(layout.size());
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.add(layout.size());
        }
        p
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > self.limit.load(Ordering::Relaxed) {
            self.refused.store(true, Ordering::SeqCst);
            report_refusal(new_size);
            return std::ptr::null_mut();
        }
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.live.fetch_sub(layout.size(), Ordering::SeqCst);
            self.add(new_size);
        }
        p
    }
}

/// How a case ended badly.
#[derive(Debug)]
pub enum Failure {
    /// The reader panicked.
    Panic(String),
    /// The reader did not finish within the time limit.
    Hang(Duration),
    /// Peak allocation went over budget.
    Memory {
        /// Peak live bytes seen.
        peak: usize,
        /// The budget.
        budget: usize,
    },
    /// The error message was empty or said nothing useful.
    UnclearError(String),
}

/// Run `f` on `data` in a worker thread with a time limit; catch panics.
/// Returns the reader's own outcome (Ok or its error text) or a [`Failure`].
pub fn run_case<F>(data: Vec<u8>, limit: Duration, f: F) -> Result<Result<(), String>, Failure>
where
    F: FnOnce(&[u8]) -> Result<(), String> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    std::thread::Builder::new()
        .name("mutation-case".into())
        .spawn(move || {
            let r = catch_unwind(AssertUnwindSafe(|| f(&data)));
            // Free the input before reporting, so that a caller measuring
            // heap use sees this case's memory gone once it has the result.
            drop(data);
            let _ = tx.send(r);
        })
        .map_err(|e| Failure::Panic(format!("could not spawn worker: {e}")))?;
    match rx.recv_timeout(limit) {
        Ok(Ok(outcome)) => {
            if let Err(msg) = &outcome {
                if msg.trim().len() < 8 {
                    return Err(Failure::UnclearError(msg.clone()));
                }
            }
            Ok(outcome)
        }
        Ok(Err(p)) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "non-string panic".into());
            Err(Failure::Panic(msg))
        }
        Err(_) => Err(Failure::Hang(start.elapsed())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_change_bytes() {
        let input: Vec<u8> = (0..2000u32).map(|i| (i * 7) as u8).collect();
        let a = mutations(&input, 42, 32);
        let b = mutations(&input, 42, 32);
        assert_eq!(a.len(), 32);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.name, y.name);
            assert_eq!(x.data, y.data);
        }
        let changed = a.iter().filter(|m| m.data != input).count();
        assert!(changed >= 28, "only {changed} of 32 differ");
        assert!(a.iter().any(|m| m.data.len() < input.len()));
    }

    #[test]
    fn harness_catches_panics_and_hangs() {
        let r = run_case(vec![1], Duration::from_secs(5), |_| panic!("boom"));
        assert!(matches!(r, Err(Failure::Panic(m)) if m == "boom"));
        let r = run_case(vec![1], Duration::from_millis(50), |_| {
            std::thread::sleep(Duration::from_millis(500));
            Ok(())
        });
        assert!(matches!(r, Err(Failure::Hang(_))));
        let r = run_case(vec![1], Duration::from_secs(5), |_| Err("x".into()));
        assert!(matches!(r, Err(Failure::UnclearError(_))));
        let r = run_case(vec![1], Duration::from_secs(5), |d| {
            Err(format!("bad byte {} at offset 0", d[0]))
        });
        assert!(matches!(r, Ok(Err(_))));
    }
}
