//! Terminating signals, gzip style: SIGINT, SIGTERM and SIGHUP remove the temporary files of
//! the outputs being written, then end the process by the same signal (the shell shows 130,
//! 143 or 129). A signal the parent ignores (SIGINT of a background job) stays ignored.
//!
//! The signals are blocked in every thread and taken by one thread waiting in `sigwait`, so the
//! cleanup runs as ordinary code (it may lock and remove files), not in a signal handler.

use crate::output;

/// Blocks the terminating signals and starts the thread that handles them. Must run before any
/// other thread starts, so that every thread inherits the blocked set.
#[cfg(unix)]
pub fn install() {
    const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];
    // SAFETY: `sigset_t` is plain data for which all-zero bytes are a valid value, and
    // `sigemptyset` initialises it before any other use.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable `sigset_t`.
    unsafe { libc::sigemptyset(&mut set) };
    let mut any = false;
    for signal in SIGNALS {
        // SAFETY: `sigaction` with a null new action only reads the current disposition into
        // `old`, a valid, writable `sigaction`.
        let ignored = unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
        };
        if !ignored {
            // SAFETY: `set` was initialised by `sigemptyset`; `signal` is a valid signal.
            unsafe { libc::sigaddset(&mut set, signal) };
            any = true;
        }
    }
    if !any {
        return;
    }
    // SAFETY: `set` is initialised; this changes only the calling (main) thread's mask, before
    // any other thread exists.
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } != 0 {
        return;
    }
    let waiter = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || wait_and_end(set));
    if waiter.is_err() {
        // No thread, no cleanup: let the signals act as they did before.
        // SAFETY: as above; unblocking restores the mask the process started with.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

#[cfg(not(unix))]
pub fn install() {}

/// Waits for one of `set`'s signals, removes the unfinished outputs and ends the process by
/// that signal.
#[cfg(unix)]
fn wait_and_end(set: libc::sigset_t) {
    let mut signal: libc::c_int = 0;
    // SAFETY: `set` is an initialised signal set whose signals are blocked in every thread;
    // `signal` is a valid, writable int.
    if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
        return;
    }
    // Held until the process ends: no new output file can be created or renamed meanwhile.
    let unfinished = output::unfinished_outputs();
    for path in unfinished.iter() {
        let _ = std::fs::remove_file(path);
    }
    std::mem::forget(unfinished);
    // SAFETY: restores the default action of `signal` (terminate), unblocks it in this thread
    // and raises it here, which ends the process with that signal as its status.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(signal);
    }
    // Only if the signal did not end the process: the shell's code for it.
    std::process::exit(128 + signal);
}
