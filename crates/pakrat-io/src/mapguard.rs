//! Memory-mapped inputs that shrink while they are read.
//!
//! A read of a mapped page that lies past the end of its file (another
//! process truncated the file after it was mapped) raises `SIGBUS`, whose
//! default action kills the process: the viewer would die, and a command
//! would leave its temporary output behind. Every input is mapped through
//! [`crate::Source`], so the defence sits here, in one place:
//!
//! * Each live mapping is registered in a fixed table of lock-free slots
//!   (address, length, and a pointer to the mapping's state).
//! * A process-wide `SIGBUS` handler, installed once by the first mapping,
//!   looks the faulting address up in that table. When it lies inside a
//!   registered mapping, the handler maps anonymous zero pages over the
//!   rest of that mapping (`mmap(MAP_FIXED | MAP_ANONYMOUS | MAP_PRIVATE)`,
//!   read-only), sets the mapping's `truncated` flag and returns: the read
//!   is retried and sees zeros. It only reads atomics and makes one system
//!   call, which is safe in a signal handler.
//! * Any other fault goes to the handler that was there before (the
//!   standard library's, which reports a stack overflow, or the default
//!   action); a `SIGBUS` sent by another process (`kill`) gets the default
//!   action back and is raised again: the process dies, as a `kill -BUS`
//!   should make it.
//! * The kernel itself never faults: a system call (`write`, `copy_file_range`)
//!   given mapped bytes past the file's end fails with `EFAULT`, an ordinary
//!   error.
//!
//! The zeros are never trusted: [`crate::Source::check`] turns the flag into
//! an error ("FILE changed size while it was read (was N bytes, now M)"),
//! [`check_inputs`] reports every input that changed in this process,
//! [`watch`] collects the inputs a piece of work opened (the viewer checks
//! each request with it), and atomic outputs ([`crate::fsutil::PendingFile`],
//! [`crate::staged::Staging`]) refuse to commit while an input changed since
//! they began, so no output built from zeros gets its final name.
//!
//! Reading with `pread` instead of mapping was the other choice; it would
//! have meant copying every input and rewriting every parser that borrows
//! from the mapped bytes, for a case (a file changed under a running
//! command) that is rare. The handler costs nothing until a fault happens.
//!
//! Outside Linux no handler is installed (the table is still kept, and the
//! checks still work for inputs that shrink without faulting).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crate::{Error, Result};

/// What one mapped input records about itself.
#[derive(Debug)]
pub(crate) struct MapState {
    /// Set by the signal handler when a read faulted past the file's end.
    truncated: AtomicBool,
    /// The file, for messages.
    path: PathBuf,
    /// Its length when it was mapped.
    len: u64,
}

impl MapState {
    fn error(&self) -> Error {
        let now = match std::fs::metadata(&self.path) {
            Ok(m) => format!("now {} bytes", m.len()),
            Err(e) => format!("now unreadable: {e}"),
        };
        Error::Io {
            path: self.path.clone(),
            source: std::io::Error::other(format!(
                "changed size while it was read (was {} bytes, {now}): what was \
                 read past its new end was zeros, not the file",
                self.len
            )),
        }
    }
}

/// Number of mappings that can be guarded at once: above Linux's default
/// `vm.max_map_count` (65,530), so the kernel runs out of mappings first.
const SLOTS: usize = 65_536;

/// One registered mapping. `seq` is odd while the slot is being written (a
/// sequence lock: the handler retries a slot whose `seq` moved under it).
struct Slot {
    seq: AtomicUsize,
    start: AtomicUsize,
    len: AtomicUsize,
    state: AtomicPtr<MapState>,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Slot = Slot {
    seq: AtomicUsize::new(0),
    start: AtomicUsize::new(0),
    len: AtomicUsize::new(0),
    state: AtomicPtr::new(std::ptr::null_mut()),
};

/// The table (1.5 MiB of zeroed memory; only the used part is ever touched).
static TABLE: [Slot; SLOTS] = [EMPTY; SLOTS];
/// Slots below this index have been used; the handler scans only them.
static HIGH: AtomicUsize = AtomicUsize::new(0);
/// Faults caught so far (each one a mapping found truncated).
static FAULTS: AtomicU64 = AtomicU64::new(0);
/// Every mapping's state, to name changed inputs outside the handler.
static STATES: Mutex<Vec<Weak<MapState>>> = Mutex::new(Vec::new());

/// A registered mapping; unregisters it when dropped (before the mapping
/// itself is unmapped: keep it declared before the map).
pub(crate) struct Guard {
    slot: Option<usize>,
    pub(crate) state: Arc<MapState>,
}

impl Guard {
    /// Whether a read of this mapping faulted past the end of the file.
    pub(crate) fn truncated(&self) -> bool {
        self.state.truncated.load(Ordering::Acquire)
    }

    /// The error for a truncated mapping.
    pub(crate) fn error(&self) -> Error {
        self.state.error()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        closed(&self.state);
        if let Some(i) = self.slot {
            let s = &TABLE[i];
            s.seq.fetch_add(1, Ordering::AcqRel);
            s.start.store(0, Ordering::Release);
            s.len.store(0, Ordering::Release);
            s.state.store(std::ptr::null_mut(), Ordering::Release);
            s.seq.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// Register the mapping `start..start+len` of `path` (installing the
/// handler on first use). Errors only when the table is full.
pub(crate) fn register(path: &Path, start: *const u8, len: usize) -> Result<Guard> {
    install();
    let state = Arc::new(MapState {
        truncated: AtomicBool::new(false),
        path: path.to_path_buf(),
        len: len as u64,
    });
    if let Ok(mut all) = STATES.lock() {
        if all.len() >= 64 && all.len() == all.capacity() {
            all.retain(|w| w.strong_count() > 0);
        }
        all.push(Arc::downgrade(&state));
    }
    WATCH.with(|w| {
        if let Some(list) = w.borrow_mut().as_mut() {
            list.push(state.clone());
        }
    });
    // Claim a free slot: even `seq` and no start; `seq` is made odd by the
    // compare-exchange, which makes the slot ours.
    let mut i = 0;
    loop {
        if i >= SLOTS {
            return Err(Error::io(
                path,
                std::io::Error::other(format!(
                    "more than {SLOTS} files are mapped at once; close some and try again"
                )),
            ));
        }
        let high = HIGH.load(Ordering::Acquire);
        if i >= high {
            // Grow the used part by one; another thread may have grown it.
            let _ = HIGH.compare_exchange(high, high + 1, Ordering::AcqRel, Ordering::Acquire);
            continue;
        }
        let s = &TABLE[i];
        let seq = s.seq.load(Ordering::Acquire);
        if seq.is_multiple_of(2)
            && s.start.load(Ordering::Acquire) == 0
            && s.seq
                .compare_exchange(seq, seq + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            s.len.store(len, Ordering::Release);
            s.state
                .store(Arc::as_ptr(&state).cast_mut(), Ordering::Release);
            s.start.store(start as usize, Ordering::Release);
            s.seq.fetch_add(1, Ordering::AcqRel);
            return Ok(Guard {
                slot: Some(i),
                state,
            });
        }
        i += 1;
    }
}

/// How many faults past a file's end were caught so far (a generation:
/// compare two readings with [`changed_since`]).
pub fn faults() -> u64 {
    FAULTS.load(Ordering::Acquire)
}

/// An error naming every input of this process that changed size while it
/// was read (live or already closed), or `Ok` if none did.
pub fn check_inputs() -> Result<()> {
    if faults() == 0 {
        return Ok(());
    }
    let changed: Vec<Arc<MapState>> = match STATES.lock() {
        Ok(all) => all
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.truncated.load(Ordering::Acquire))
            .collect(),
        Err(_) => Vec::new(),
    };
    let closed = CLOSED.lock().map(|c| c.clone()).unwrap_or_default();
    let mut msgs: Vec<String> = changed.iter().map(|s| s.error().to_string()).collect();
    msgs.extend(closed);
    msgs.sort();
    msgs.dedup();
    if msgs.is_empty() {
        msgs.push("an input file changed size while it was read".into());
    }
    Err(Error::Other(msgs.join("; ")))
}

/// `Ok` if no input changed since [`faults`] read `since`, and no input
/// still open is known to have changed; otherwise [`check_inputs`]'s error.
/// Atomic outputs call this before they take their final name.
pub fn changed_since(since: u64) -> Result<()> {
    if faults() == since {
        let live_changed = STATES.lock().is_ok_and(|all| {
            all.iter()
                .filter_map(Weak::upgrade)
                .any(|s| s.truncated.load(Ordering::Acquire))
        });
        if !live_changed {
            return Ok(());
        }
    }
    check_inputs()
}

/// Messages of truncated inputs already closed (at most a few kept).
static CLOSED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remember a truncated input that is being closed, for [`check_inputs`].
pub(crate) fn closed(state: &MapState) {
    if state.truncated.load(Ordering::Acquire) {
        if let Ok(mut c) = CLOSED.lock() {
            if c.len() < 16 {
                c.push(state.error().to_string());
            }
        }
    }
}

thread_local! {
    /// The inputs opened on this thread while [`watch`] runs.
    static WATCH: std::cell::RefCell<Option<Vec<Arc<MapState>>>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f`, then report the first input it mapped (on this thread) that
/// changed size while it was read: `Err` with the error naming it, in place
/// of `f`'s result. A server wraps each request in this.
pub fn watch<T>(f: impl FnOnce() -> T) -> std::result::Result<T, Error> {
    let outer = WATCH.with(|w| w.borrow_mut().replace(Vec::new()));
    let out = f();
    let mine = WATCH
        .with(|w| std::mem::replace(&mut *w.borrow_mut(), outer))
        .unwrap_or_default();
    let first = mine
        .iter()
        .find(|s| s.truncated.load(Ordering::Acquire))
        .map(|s| s.error());
    // An outer watch sees the same inputs.
    WATCH.with(|w| {
        if let Some(list) = w.borrow_mut().as_mut() {
            list.extend(mine);
        }
    });
    match first {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

#[cfg(target_os = "linux")]
mod handler {
    use super::*;
    use std::sync::Once;

    /// The disposition of SIGBUS before ours, called for faults not ours.
    static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::zeroed();
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    pub(super) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: sysconf is always safe to call.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            // SAFETY: sigaction with valid pointers; PREVIOUS is written
            // once here, before our handler (its only reader) is installed.
            unsafe {
                let prev = &raw mut PREVIOUS;
                if libc::sigaction(libc::SIGBUS, std::ptr::null(), (*prev).as_mut_ptr()) != 0 {
                    return;
                }
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_sigbus as *const () as usize;
                act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut act.sa_mask);
                libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut());
            }
        });
    }

    /// Find the registered mapping holding `addr`: (start, len, state).
    fn lookup(addr: usize) -> Option<(usize, usize, *mut MapState)> {
        let high = HIGH.load(Ordering::Acquire).min(SLOTS);
        for s in &TABLE[..high] {
            // A slot being rewritten while we look is read again (a few
            // times: the writer is another thread, never this one, since
            // registering does not touch mapped memory).
            for _ in 0..8 {
                let a = s.seq.load(Ordering::Acquire);
                if a % 2 == 1 {
                    continue;
                }
                let start = s.start.load(Ordering::Acquire);
                let len = s.len.load(Ordering::Acquire);
                let state = s.state.load(Ordering::Acquire);
                if s.seq.load(Ordering::Acquire) != a {
                    continue;
                }
                if start != 0 && addr >= start && addr - start < len && !state.is_null() {
                    return Some((start, len, state));
                }
                break;
            }
        }
        None
    }

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
        let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
        // si_code > 0: raised by the kernel for a fault (not kill/sigqueue).
        if code > 0 {
            if let Some((start, len, state)) = lookup(addr) {
                let page = PAGE.load(Ordering::Relaxed);
                let from = addr & !(page - 1);
                let end = (start + len).div_ceil(page) * page;
                // SAFETY: from..end lies inside a live read-only mapping
                // that we own (registered and not yet unregistered, since a
                // read of it is in progress); replacing its pages with zero
                // pages changes no Rust-visible invariant beyond the bytes,
                // which are flagged as untrustworthy. mmap is a plain
                // system call on Linux.
                let r = unsafe {
                    libc::mmap(
                        from as *mut libc::c_void,
                        end - from,
                        libc::PROT_READ,
                        libc::MAP_FIXED | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    )
                };
                if r != libc::MAP_FAILED {
                    // SAFETY: the state outlives its registration (the
                    // Source that owns both is being read, so not dropped).
                    unsafe { (*state).truncated.store(true, Ordering::Release) };
                    FAULTS.fetch_add(1, Ordering::AcqRel);
                    return;
                }
            }
        }
        // Not ours. A fault goes to the handler that was there before (the
        // standard library's tells a stack overflow apart, then restores the
        // default action and lets the fault recur); a SIGBUS sent by another
        // process gets the default action: the process ends.
        // SAFETY: PREVIOUS was filled before this handler was installed.
        unsafe {
            let prev: &libc::sigaction = &*(&raw const PREVIOUS).cast::<libc::sigaction>();
            let h = prev.sa_sigaction;
            if code > 0 && h != libc::SIG_DFL && h != libc::SIG_IGN {
                if prev.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                        std::mem::transmute(h);
                    f(sig, info, ctx);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                    f(sig);
                }
                return;
            }
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
            // Delivered when this handler returns (SIGBUS is blocked until
            // then); a fault would also recur on return.
            libc::raise(libc::SIGBUS);
        }
    }
}

#[cfg(target_os = "linux")]
use handler::install;

#[cfg(not(target_os = "linux"))]
fn install() {}
