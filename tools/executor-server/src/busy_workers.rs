//! Whether a worker's start-up would take its CPU time from the server's
//! sessions: on a server confined to one CPU (`taskset`, a cpuset), while
//! the server's workers keep that CPU busy. A start-up costs tens of
//! milliseconds of CPU time; a session that has just begun a loop of
//! launches would pay for all of it. With more CPUs, the start-up runs on
//! another one.
//!
//! The workers' CPU time is read from `/proc`: the server's children (every
//! thread's `children` file) and their `stat` lines. Where `/proc` cannot
//! tell, the workers count as idle.

use std::{
    fs,
    time::{Duration, Instant},
};

use crate::proc_stat;

/// How long the workers' CPU time is sampled over to tell whether they are
/// busy.
const SAMPLE: Duration = Duration::from_millis(100);

/// Waits while the server is confined to one CPU and its workers keep it
/// busy, at most `patience` (then the caller goes on regardless, so that a
/// session that is always busy does not keep the warm pool empty).
pub(crate) fn wait_until_idle(patience: Duration) {
    let one_cpu = std::thread::available_parallelism().is_ok_and(|cpus| cpus.get() == 1);
    let deadline = Instant::now() + patience;
    hold_back(one_cpu, || {
        Instant::now() < deadline && busy_over(SAMPLE, clock_ticks_per_second())
    });
}

/// Calls `sample_busy` (which takes a sample's time) while it says busy, if
/// the server is `confined` to one CPU.
fn hold_back(confined: bool, mut sample_busy: impl FnMut() -> bool) {
    if confined {
        while sample_busy() {}
    }
}

/// Whether the server's children used at least a quarter of the CPU time of
/// `sample`, measured over it (a worker that serves a client launching in a
/// loop on the same CPU takes about half).
fn busy_over(sample: Duration, ticks_per_second: u64) -> bool {
    let Some(before) = children_ticks() else {
        return false;
    };
    std::thread::sleep(sample);
    let Some(after) = children_ticks() else {
        return false;
    };
    // A child that exited in between takes its ticks along: at worst, the
    // workers look less busy than they were.
    let used = after.saturating_sub(before) as f64 / ticks_per_second as f64;
    used >= sample.as_secs_f64() / 4.0
}

/// The CPU time (user and system, in clock ticks) the server's children have
/// used so far; `None` if `/proc` does not list them.
fn children_ticks() -> Option<u64> {
    let mut total = 0;
    for task in fs::read_dir("/proc/self/task").ok()? {
        let children = fs::read_to_string(task.ok()?.path().join("children")).ok()?;
        for pid in children.split_whitespace() {
            // A child that exited since it was listed used nothing more.
            if let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) {
                total += cpu_ticks(&stat).unwrap_or(0);
            }
        }
    }
    Some(total)
}

/// utime + stime of a `/proc/PID/stat` line (fields 14 and 15).
fn cpu_ticks(stat: &str) -> Option<u64> {
    let mut fields = proc_stat::fields_after_name(stat)?.skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks)
        .ok()
        .filter(|&ticks| ticks > 0)
        .unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_are_user_and_system_time() {
        let stat = "4242 (exe (a) b) S 1 4242 4242 0 -1 4194560 2043 0 0 0 37 5 0 0 20 0 1 0 \
                    123 4096 100 18446744073709551615";
        assert_eq!(cpu_ticks(stat), Some(42));
        assert_eq!(cpu_ticks("4242 (exe) S 1"), None);
    }

    #[test]
    fn holds_back_while_busy_on_one_cpu_only() {
        let mut samples = 0;
        hold_back(false, || {
            samples += 1;
            true
        });
        assert_eq!(samples, 0, "with more CPUs, nothing is sampled");
        hold_back(true, || {
            samples += 1;
            samples < 3
        });
        assert_eq!(samples, 3, "sampled until idle");
    }
}
