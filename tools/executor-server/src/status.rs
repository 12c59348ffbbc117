//! What a worker tells its supervisor: which symbols it is running, so that if
//! it dies by a signal the supervisor can say which kernel crashed.
//!
//! The two processes share a table in memory (a `memfd` that the supervisor
//! creates and the worker inherits, mapped `MAP_SHARED` by both). The worker
//! updates it with plain atomic stores before and after every client symbol it
//! runs; the supervisor reads it only when the worker has died (or to log what
//! runs when it kills one). Nothing crosses between the processes per launch:
//! no system call, no wake-up.
//!
//! Each slot of the table holds a symbol and how many runs of it are in
//! progress; the worker keeps a symbol in its slot after it finishes, so that
//! running it again is two stores. Symbols come from the network: what is
//! recorded of one is cut to [`MAX_RECORDED_SYMBOL`] bytes, and runs of more
//! distinct symbols at once than there are slots are only counted. The table
//! lives in the worker's memory, where a kernel could scribble on it: the
//! supervisor reads it as untrusted data (every length clamped, any bytes
//! accepted), and at worst names the wrong kernel, or (over TLS) numbers its
//! crash report wrongly. A kernel that does so runs in its own session's
//! worker, which holds that session's keys anyway: it can harm only its own
//! session.
//!
//! Over TLS the worker's writer marks the table while it sends records and
//! notes the next record's number after each write, so that the supervisor
//! sends a crash report only where no record was sent before (a number used
//! twice would reuse an AES-GCM nonce).

use std::{
    io,
    os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd},
    ptr::NonNull,
    sync::{
        Arc,
        atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering},
    },
};

use rustc_hash::FxHashMap;

/// Symbols are the client's strings, as long as a message allows; what is
/// recorded of one is cut to this many bytes.
const MAX_RECORDED_SYMBOL: usize = 4096;

/// How many distinct symbols can be recorded as running at once: one
/// synchronous launch or call, and the entries of async launches in flight.
const SLOTS: usize = 64;

/// How many slots a worker maps in before its session
/// ([`Announcer::prepare`]): those of the load-time code of its first object
/// and of its first kernel, each in a page of its own.
const PREPARED_SLOTS: usize = 2;

// The table: a header, then the slots.
//
// header := unrecorded: u64          -- runs in progress that have no slot
//           tx_sequence: u64         -- over TLS, 1 + the sequence number of
//                                       the next record the worker sends
//                                       (0: none sent since the handover;
//                                       WRITING while it sends records)
// slot   := running: u32             -- runs of the symbol in progress
//           len: u32                 -- the symbol's length in bytes
//           order: u64               -- when running last went from 0 to 1
//           name: [u8; MAX_RECORDED_SYMBOL]
const UNRECORDED: usize = 0;
const TX_SEQUENCE: usize = 8;
const HEADER_SIZE: usize = 64;
/// `tx_sequence` while the worker is sending records: which numbers it has
/// used is unknown, so no record may follow them.
const WRITING: u64 = u64::MAX;
const SLOT_RUNNING: usize = 0;
const SLOT_LEN: usize = 4;
const SLOT_ORDER: usize = 8;
const SLOT_NAME: usize = 16;
const SLOT_SIZE: usize = SLOT_NAME + MAX_RECORDED_SYMBOL;
const TABLE_SIZE: usize = HEADER_SIZE + SLOTS * SLOT_SIZE;

/// The table mapped into this process, accessed only through atomics.
/// Shared by the worker's announcer and its TLS writer ([`RecordLog`]).
struct Table {
    base: NonNull<u8>,
}

// SAFETY: the mapping is owned by this value and only ever accessed through
// atomic operations, which any thread may perform.
unsafe impl Send for Table {}
// SAFETY: as above.
unsafe impl Sync for Table {}

impl Table {
    /// Maps the table in `file`, which must be [`TABLE_SIZE`] bytes long.
    fn map(file: BorrowedFd<'_>) -> io::Result<Self> {
        // SAFETY: fstat fills the zeroed stat buffer it is given.
        let size = unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            if libc::fstat(file.as_raw_fd(), &mut stat) == -1 {
                return Err(io::Error::last_os_error());
            }
            stat.st_size
        };
        // A shorter file would make accesses past its end fault.
        if usize::try_from(size).ok() != Some(TABLE_SIZE) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the status table is {size} bytes, not {TABLE_SIZE}"),
            ));
        }
        // SAFETY: maps a new region of the open file at an address of the
        // kernel's choosing; nothing in this process refers to it yet.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                TABLE_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base =
            NonNull::new(address.cast()).ok_or_else(|| io::Error::other("mmap gave null"))?;
        Ok(Self { base })
    }

    /// The atomic of type `A` at `offset`.
    fn at<A>(&self, offset: usize) -> &A {
        assert!(
            offset + size_of::<A>() <= TABLE_SIZE && offset.is_multiple_of(align_of::<A>()),
            "offset {offset} in the status table"
        );
        // SAFETY: the mapping is TABLE_SIZE bytes, page-aligned, and lives as
        // long as `self`; the offset is in bounds and aligned for `A`, an
        // atomic integer, which has the layout of its integer and is valid for
        // any bits the other process (or a stray kernel) may have stored.
        unsafe { &*self.base.as_ptr().add(offset).cast::<A>() }
    }

    fn unrecorded(&self) -> &AtomicU64 {
        self.at(UNRECORDED)
    }

    fn tx_sequence(&self) -> &AtomicU64 {
        self.at(TX_SEQUENCE)
    }

    fn running(&self, slot: usize) -> &AtomicU32 {
        self.at(HEADER_SIZE + slot * SLOT_SIZE + SLOT_RUNNING)
    }

    fn len(&self, slot: usize) -> &AtomicU32 {
        self.at(HEADER_SIZE + slot * SLOT_SIZE + SLOT_LEN)
    }

    fn order(&self, slot: usize) -> &AtomicU64 {
        self.at(HEADER_SIZE + slot * SLOT_SIZE + SLOT_ORDER)
    }

    fn name_byte(&self, slot: usize, index: usize) -> &AtomicU8 {
        debug_assert!(index < MAX_RECORDED_SYMBOL);
        self.at(HEADER_SIZE + slot * SLOT_SIZE + SLOT_NAME + index)
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the region `map` mapped; no reference into it
        // outlives `self`.
        unsafe { libc::munmap(self.base.as_ptr().cast(), TABLE_SIZE) };
    }
}

/// The supervisor's side: creates the table for one worker and reads it.
pub(crate) struct StatusTable {
    table: Table,
}

impl StatusTable {
    /// A new, empty table, and the descriptor of its memory for the worker
    /// (close-on-exec, like every descriptor this process makes).
    pub fn create() -> io::Result<(Self, OwnedFd)> {
        // SAFETY: the name is a NUL-terminated string; the flags are valid.
        let fd = unsafe { libc::memfd_create(c"executor-status".as_ptr(), libc::MFD_CLOEXEC) };
        if fd == -1 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: memfd_create returned a new descriptor that nothing else owns.
        let file = unsafe { OwnedFd::from_raw_fd(fd) };
        // A new memfd is empty; its pages read as zeros: every count is 0.
        // SAFETY: sets the size of the file just created.
        if unsafe { libc::ftruncate(file.as_raw_fd(), TABLE_SIZE as libc::off_t) } == -1 {
            return Err(io::Error::last_os_error());
        }
        let table = Table::map(file.as_fd())?;
        Ok((Self { table }, file))
    }

    /// Over TLS, where the worker's records to the client stopped.
    pub fn records_sent(&self) -> RecordsSent {
        match self.table.tx_sequence().load(Ordering::Acquire) {
            0 => RecordsSent::NoneRecorded,
            WRITING => RecordsSent::Writing,
            next => RecordsSent::UpTo(next - 1),
        }
    }

    /// What the worker is running, as far as the table says.
    pub fn running_symbols(&self) -> RunningSymbols {
        let table = &self.table;
        let mut symbols: Vec<(u64, String)> = (0..SLOTS)
            .filter(|&slot| table.running(slot).load(Ordering::Acquire) > 0)
            .map(|slot| {
                let len =
                    (table.len(slot).load(Ordering::Relaxed) as usize).min(MAX_RECORDED_SYMBOL);
                let bytes: Vec<u8> = (0..len)
                    .map(|index| table.name_byte(slot, index).load(Ordering::Relaxed))
                    .collect();
                let order = table.order(slot).load(Ordering::Relaxed);
                (order, String::from_utf8_lossy(&bytes).into_owned())
            })
            .collect();
        symbols.sort();
        RunningSymbols {
            symbols: symbols.into_iter().map(|(_, symbol)| symbol).collect(),
            unrecorded: table.unrecorded().load(Ordering::Acquire),
        }
    }
}

/// Over TLS, where the worker's records to the client stopped, as the table
/// says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecordsSent {
    /// None since the handover: the next record is the handover's.
    NoneRecorded,
    /// It died while sending: a record sent after its last one would reuse
    /// a number (and so an AES-GCM nonce) it may have used.
    Writing,
    /// The next record is numbered this.
    UpTo(u64),
}

/// The worker's TLS writer's note, in the table, of the records it sends:
/// [`RecordLog::writing`] before each write, [`RecordLog::sent_up_to`]
/// after it.
pub(crate) struct RecordLog {
    table: Arc<Table>,
}

impl RecordLog {
    pub fn writing(&self) {
        self.table.tx_sequence().store(WRITING, Ordering::Release);
    }

    pub fn sent_up_to(&self, next_sequence: u64) {
        // Never WRITING or 0: a sequence number that high ends the session
        // long before (rustls's limits).
        let stored = next_sequence.saturating_add(1).min(WRITING - 1);
        self.table.tx_sequence().store(stored, Ordering::Release);
    }
}

/// The worker's side: records what it runs.
pub(crate) struct Announcer {
    table: Arc<Table>,
    /// The slot of each symbol in the table, running or not (Fx hashing:
    /// looked up at every launch, with names from the session's own client).
    slots: FxHashMap<String, usize>,
    /// The symbol in each slot, if any.
    names: Vec<Option<String>>,
    /// What this process last stored in each slot's `running` (the table
    /// itself is only written, never trusted).
    running: Vec<u32>,
    unrecorded: u64,
    next_order: u64,
}

/// One run in progress, to be finished with [`Announcer::finished`].
#[must_use]
pub(crate) struct Running(Option<usize>);

impl Announcer {
    /// Maps the table the supervisor passed (the descriptor can be closed
    /// afterwards).
    pub fn attach(file: BorrowedFd<'_>) -> io::Result<Self> {
        Ok(Self {
            table: Arc::new(Table::map(file)?),
            slots: FxHashMap::default(),
            names: vec![None; SLOTS],
            running: vec![0; SLOTS],
            unrecorded: 0,
            next_order: 0,
        })
    }

    /// Maps in the table's pages of its first [`PREPARED_SLOTS`] slots (the
    /// first of them holds the header too), as a warm worker waits for its
    /// session: the first store into each page of the shared memory
    /// otherwise faults it in (allocating and clearing it), in the middle
    /// of the session's first `send_binary` and first launch. What is
    /// stored is what the table holds before anything runs.
    pub fn prepare(&self) {
        for slot in 0..PREPARED_SLOTS {
            self.table.running(slot).store(0, Ordering::Relaxed);
        }
    }

    /// The note the worker's TLS writer keeps of the records it sends, so
    /// that the supervisor can send one after them if the worker dies.
    pub fn record_log(&self) -> RecordLog {
        RecordLog {
            table: Arc::clone(&self.table),
        }
    }

    /// Records that `symbol` is about to run; stored before the call, so it
    /// is in the table even if the call kills the worker.
    pub fn started(&mut self, symbol: &str) -> Running {
        let mut end = symbol.len().min(MAX_RECORDED_SYMBOL);
        while !symbol.is_char_boundary(end) {
            end -= 1;
        }
        let symbol = &symbol[..end];
        let slot = match self.slots.get(symbol) {
            Some(&slot) => Some(slot),
            None => self.claim(symbol),
        };
        match slot {
            Some(slot) => {
                if self.running[slot] == 0 {
                    self.table
                        .order(slot)
                        .store(self.next_order, Ordering::Relaxed);
                    self.next_order += 1;
                }
                self.running[slot] += 1;
                // Release: the name and order are in place before the slot
                // counts as running.
                self.table
                    .running(slot)
                    .store(self.running[slot], Ordering::Release);
            }
            None => {
                self.unrecorded += 1;
                self.table
                    .unrecorded()
                    .store(self.unrecorded, Ordering::Release);
            }
        }
        Running(slot)
    }

    pub fn finished(&mut self, run: Running) {
        match run.0 {
            Some(slot) => {
                self.running[slot] -= 1;
                self.table
                    .running(slot)
                    .store(self.running[slot], Ordering::Release);
            }
            None => {
                self.unrecorded -= 1;
                self.table
                    .unrecorded()
                    .store(self.unrecorded, Ordering::Release);
            }
        }
    }

    /// Writes `symbol` into a free slot, or into one whose symbol is not
    /// running; None if every slot is running.
    fn claim(&mut self, symbol: &str) -> Option<usize> {
        let slot = self
            .names
            .iter()
            .position(Option::is_none)
            .or_else(|| self.running.iter().position(|&running| running == 0))?;
        if let Some(previous) = self.names[slot].take() {
            self.slots.remove(&previous);
        }
        // The slot is not running, so a reader ignores it until `started`
        // stores its count.
        for (index, byte) in symbol.bytes().enumerate() {
            self.table
                .name_byte(slot, index)
                .store(byte, Ordering::Relaxed);
        }
        self.table
            .len(slot)
            .store(symbol.len() as u32, Ordering::Relaxed);
        self.names[slot] = Some(symbol.to_owned());
        self.slots.insert(symbol.to_owned(), slot);
        Some(slot)
    }
}

/// The supervisor's view of what its worker runs.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct RunningSymbols {
    /// In the order they started.
    symbols: Vec<String>,
    /// Runs of symbols the table had no room for.
    unrecorded: u64,
}

impl RunningSymbols {
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty() && self.unrecorded == 0
    }

    /// What the worker was running: a single symbol, or the candidates when
    /// several ran at once (async launches), since a signal does not say
    /// which thread it hit.
    pub fn describe(&self) -> String {
        let listed = match (self.symbols.as_slice(), self.unrecorded) {
            ([], 0) => return "(no kernel: the executor itself)".to_owned(),
            ([symbol], 0) => return symbol.clone(),
            ([], _) => return format!("one of {} kernels", self.unrecorded),
            (several, _) => format!("one of {}", several.join(", ")),
        };
        match self.unrecorded {
            0 => listed,
            more => format!("{listed} and {more} more"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (StatusTable, Announcer) {
        let (table, file) = StatusTable::create().unwrap();
        let announcer = Announcer::attach(file.as_fd()).unwrap();
        drop(file);
        (table, announcer)
    }

    #[test]
    fn a_prepared_table_shows_nothing_running() {
        let (table, announcer) = pair();
        announcer.prepare();
        assert!(table.running_symbols().is_empty());
        assert_eq!(table.records_sent(), RecordsSent::NoneRecorded);
    }

    #[test]
    fn the_supervisor_sees_what_runs() {
        let (table, mut announcer) = pair();
        assert!(table.running_symbols().is_empty());
        assert_eq!(
            table.running_symbols().describe(),
            "(no kernel: the executor itself)"
        );
        let first = announcer.started("a\nb");
        let sleep = announcer.started("sleep");
        announcer.finished(first);
        assert_eq!(table.running_symbols().describe(), "sleep");
        let other = announcer.started("other");
        let again = announcer.started("sleep");
        assert_eq!(table.running_symbols().describe(), "one of sleep, other");
        announcer.finished(sleep);
        announcer.finished(again);
        announcer.finished(other);
        assert!(table.running_symbols().is_empty());
        // A symbol run again reuses its slot and starts a new order.
        let reused = announcer.started("a\nb");
        assert_eq!(table.running_symbols().describe(), "a\nb");
        announcer.finished(reused);
    }

    #[test]
    fn the_supervisor_sees_where_the_tls_records_stopped() {
        let (table, announcer) = pair();
        let log = announcer.record_log();
        assert_eq!(table.records_sent(), RecordsSent::NoneRecorded);
        log.sent_up_to(0);
        assert_eq!(table.records_sent(), RecordsSent::UpTo(0));
        log.writing();
        assert_eq!(table.records_sent(), RecordsSent::Writing);
        log.sent_up_to(41);
        assert_eq!(table.records_sent(), RecordsSent::UpTo(41));
    }

    #[test]
    fn long_symbols_are_cut_at_a_character_boundary() {
        let (table, mut announcer) = pair();
        let symbol = format!("{}é", "x".repeat(MAX_RECORDED_SYMBOL - 1));
        let run = announcer.started(&symbol);
        assert_eq!(
            table.running_symbols().describe(),
            "x".repeat(MAX_RECORDED_SYMBOL - 1)
        );
        announcer.finished(run);
    }

    #[test]
    fn more_symbols_than_slots_are_counted() {
        let (table, mut announcer) = pair();
        let runs: Vec<Running> = (0..SLOTS + 2)
            .map(|index| announcer.started(&format!("k{index}")))
            .collect();
        let described = table.running_symbols().describe();
        assert!(described.starts_with("one of k0, k1,"), "{described}");
        assert!(described.ends_with(" and 2 more"), "{described}");
        for run in runs {
            announcer.finished(run);
        }
        assert!(table.running_symbols().is_empty());
        // Finished slots are reused for new symbols.
        let run = announcer.started("late");
        assert_eq!(table.running_symbols().describe(), "late");
        announcer.finished(run);
    }

    #[test]
    fn a_scribbled_table_is_read_safely() {
        let (table, _announcer) = pair();
        for slot in 0..SLOTS {
            table.table.running(slot).store(u32::MAX, Ordering::Relaxed);
            table.table.len(slot).store(u32::MAX, Ordering::Relaxed);
            table
                .table
                .name_byte(slot, 0)
                .store(0xff, Ordering::Relaxed);
        }
        let running = table.running_symbols();
        assert_eq!(running.symbols.len(), SLOTS);
        assert!(
            running
                .symbols
                .iter()
                .all(|symbol| symbol.starts_with('\u{fffd}'))
        );
    }
}
