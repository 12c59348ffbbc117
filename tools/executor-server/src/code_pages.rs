//! Maps a worker's code before its session comes. Code a process runs for
//! the first time costs it a page fault even when the file is in the page
//! cache: about 10 us after idle on a VM, for the 16 pages the kernel maps
//! around the one touched. A session's first requests run a few such pages
//! (libc's `sched_getaffinity`, the request decoder, the loader's crash
//! reports). So a warm worker, while it waits, has the kernel map all the
//! code of its program and of the libraries it links, but for the largest
//! (libLLVM's 65 MiB, of which the JIT's warm-up maps what a first link
//! runs): `MADV_POPULATE_READ` (Linux 5.14; on older kernels the pages fault
//! in as they are run).
//!
//! The page tables cost 2 KiB per MiB mapped. The call takes 2-3 ms, which a
//! worker started for a session that waits already does not spend.

use std::{ffi::c_void, ops::Range};

/// The largest mapping of code mapped ahead.
const LARGEST: usize = 8 << 20;

/// Maps the code of this process's program and libraries, those of at most
/// [`LARGEST`] bytes. False if the kernel mapped none of it (one without
/// `MADV_POPULATE_READ`, or no `/proc`).
pub(crate) fn map_ahead() -> bool {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return false;
    };
    let mut mapped = false;
    for range in maps.lines().filter_map(code_of_a_file) {
        if range.len() <= LARGEST {
            // SAFETY: the range is one of this process's mappings, as the
            // kernel lists it; MADV_POPULATE_READ only maps its pages,
            // changing neither content nor protection. A kernel without it
            // refuses (EINVAL), and its pages fault in as they would have.
            let result = unsafe {
                libc::madvise(
                    range.start as *mut c_void,
                    range.len(),
                    libc::MADV_POPULATE_READ,
                )
            };
            mapped |= result == 0;
        }
    }
    mapped
}

/// The addresses of a line of `/proc/self/maps` that maps a file's code
/// (readable and executable, with a path).
fn code_of_a_file(line: &str) -> Option<Range<usize>> {
    let mut fields = line.split_ascii_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let permissions = fields.next()?;
    // The offset, the device and the inode, then the path.
    let path = fields.nth(3)?;
    if !permissions.starts_with("r-x") || !path.starts_with('/') {
        return None;
    }
    Some(usize::from_str_radix(start, 16).ok()?..usize::from_str_radix(end, 16).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_code_of_files_only() {
        let code = "7f00a000-7f00c000 r-xp 00028000 08:01 1234 /usr/lib/libc.so.6";
        assert_eq!(code_of_a_file(code), Some(0x7f00a000..0x7f00c000));
        for other in [
            "7f00c000-7f00d000 r--p 00030000 08:01 1234 /usr/lib/libc.so.6",
            "7f00d000-7f00e000 rw-p 00031000 08:01 1234 /usr/lib/libc.so.6",
            "7ffd000-7ffe000 r-xp 00000000 00:00 0 [vdso]",
            "7f00e000-7f00f000 r-xp 00000000 00:00 0 ",
            "not a line of maps",
        ] {
            assert_eq!(code_of_a_file(other), None, "{other}");
        }
    }

    /// The resident pages of this test program's code, in KiB, from
    /// `/proc/self/smaps`: those its page tables map.
    fn resident_code_of_this_program() -> (u64, u64) {
        let program = std::env::current_exe().unwrap();
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let (mut size, mut resident, mut inside) = (0, 0, false);
        for line in smaps.lines() {
            if let Some(range) = code_of_a_file(line) {
                inside = line.ends_with(program.to_str().unwrap());
                if inside {
                    size += (range.len() / 1024) as u64;
                }
            } else if line.contains('-') && !line.ends_with("kB") {
                inside = false;
            } else if inside && let Some(rss) = line.strip_prefix("Rss:") {
                resident += rss
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .unwrap();
            }
        }
        (size, resident)
    }

    #[test]
    fn maps_all_of_the_programs_code() {
        if !map_ahead() {
            eprintln!("this kernel cannot map ahead (MADV_POPULATE_READ is Linux 5.14 on)");
            return;
        }
        let (size, resident) = resident_code_of_this_program();
        assert!(size > 0, "this program's code is mapped");
        assert_eq!(
            resident, size,
            "every page of this program's code is mapped"
        );
    }
}
