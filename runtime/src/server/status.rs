//! What a worker tells its supervisor over the status pipe: which symbols it
//! is running, so that if it dies by a signal the supervisor can say which
//! kernel crashed. Events are framed like protocol messages, since symbols come
//! from the network and may contain anything.

use std::{collections::BTreeMap, fs::File, io::Read};

use serde::{Deserialize, Serialize};

use crate::protocol::{self, ProtocolError};

/// Symbols are the client's strings, as long as a message allows; what is
/// announced of one is cut to this many bytes, so every event fits in
/// [`MAX_EVENT_SIZE`].
const MAX_ANNOUNCED_SYMBOL: usize = 4096;
const MAX_EVENT_SIZE: u32 = 2 * MAX_ANNOUNCED_SYMBOL as u32;

#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
enum StatusEvent {
    /// About to run `symbol`; written before the call, so it is in the pipe
    /// even if the call kills the worker.
    Started {
        id: u64,
        symbol: String,
    },
    Finished {
        id: u64,
    },
}

/// The worker's end of the pipe.
pub(super) struct Announcer {
    pipe: File,
    next_id: u64,
}

/// One running symbol, to be finished with [`Announcer::finished`].
#[must_use]
pub(super) struct Running(u64);

impl Announcer {
    pub fn new(pipe: File) -> Self {
        Self { pipe, next_id: 0 }
    }

    pub fn started(&mut self, symbol: &str) -> Running {
        let id = self.next_id;
        self.next_id += 1;
        let mut end = symbol.len().min(MAX_ANNOUNCED_SYMBOL);
        while !symbol.is_char_boundary(end) {
            end -= 1;
        }
        self.send(&StatusEvent::Started {
            id,
            symbol: symbol[..end].to_owned(),
        });
        Running(id)
    }

    pub fn finished(&mut self, running: Running) {
        self.send(&StatusEvent::Finished { id: running.0 });
    }

    fn send(&mut self, event: &StatusEvent) {
        // Only a dead supervisor fails this, and then the worker is about to
        // be killed anyway (it dies with its parent).
        if let Err(error) = protocol::write_message(&mut self.pipe, event, MAX_EVENT_SIZE) {
            tracing::warn!(%error, "cannot tell the supervisor what runs");
        }
    }
}

/// The supervisor's view of what its worker runs.
#[derive(Default)]
pub(super) struct RunningSymbols(BTreeMap<u64, String>);

impl RunningSymbols {
    /// Reads and applies one event; `Err` once the pipe is closed (the worker
    /// exited) or unreadable.
    pub fn read_event(&mut self, pipe: &mut impl Read) -> Result<(), ProtocolError> {
        match protocol::read_message(pipe, MAX_EVENT_SIZE)? {
            StatusEvent::Started { id, symbol } => {
                self.0.insert(id, symbol);
            }
            StatusEvent::Finished { id } => {
                self.0.remove(&id);
            }
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// What the worker was running: a single symbol, or the candidates when
    /// several ran at once (async launches), since a signal does not say
    /// which thread it hit.
    pub fn describe(&self) -> String {
        let symbols: Vec<&str> = self.0.values().map(String::as_str).collect();
        match symbols.as_slice() {
            [] => "(no kernel: the executor itself)".to_owned(),
            [symbol] => (*symbol).to_owned(),
            several => format!("one of {}", several.join(", ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_symbols_follow_the_events() {
        let mut pipe = Vec::new();
        for event in [
            StatusEvent::Started {
                id: 0,
                symbol: "a\nb".into(),
            },
            StatusEvent::Started {
                id: 1,
                symbol: "sleep".into(),
            },
            StatusEvent::Finished { id: 0 },
        ] {
            protocol::write_message(&mut pipe, &event, MAX_EVENT_SIZE).unwrap();
        }
        let mut running = RunningSymbols::default();
        let mut reader = pipe.as_slice();
        while running.read_event(&mut reader).is_ok() {}
        assert_eq!(running.describe(), "sleep");
        running.0.insert(7, "other".into());
        assert_eq!(running.describe(), "one of sleep, other");
    }
}
