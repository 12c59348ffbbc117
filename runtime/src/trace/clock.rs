//! Where a server's steps go on this trace's clock: the offset of the
//! server's clock, estimated as NTP does from one exchange. The client sends
//! at `t0` (its clock), the server reads the request at `t1` and answers at
//! `t2` (its clock), the client reads the answer at `t3`. Assuming the way
//! there takes as long as the way back, the server's clock is ahead by
//! `((t1 - t0) + (t2 - t3)) / 2`; since each way takes between zero and the
//! whole round trip, the estimate is off by at most half the round trip
//! net of the server's own time, `((t3 - t0) - (t2 - t1)) / 2`.

use super::timeline::ServerSpan;
use crate::protocol::Step;

/// A server's clock as seen from this trace.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServerClock {
    /// How far the server's clock is ahead of this trace's, in
    /// microseconds.
    offset: f64,
    /// The most the offset can be off by, in microseconds.
    pub error: f64,
}

impl ServerClock {
    /// The estimate from one exchange (see the module's comment): `t0` and
    /// `t3` on this trace's clock, `t1` and `t2` on the server's.
    pub fn estimate(t0: f64, t1: u64, t2: u64, t3: f64) -> Self {
        let (t1, t2) = (t1 as f64, t2 as f64);
        Self {
            offset: ((t1 - t0) + (t2 - t3)) / 2.0,
            error: (((t3 - t0) - (t2 - t1)) / 2.0).max(0.0),
        }
    }

    /// `step`, measured on the server's clock, on this trace's.
    pub fn place(&self, step: &Step) -> ServerSpan {
        ServerSpan {
            name: step.name.clone(),
            started: step.start_us as f64 - self.offset,
            duration: step.duration_us as f64,
            clock_error: self.error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symmetric_exchange_gives_the_offset_exactly() {
        // The server's clock is 1000 µs ahead; each way takes 30 µs, and the
        // server takes 40 µs to answer.
        let clock = ServerClock::estimate(100.0, 1130, 1170, 200.0);
        assert_eq!(clock.offset, 1000.0);
        assert_eq!(clock.error, 30.0);
        let step = Step {
            name: "run".into(),
            start_us: 1140,
            duration_us: 10,
        };
        assert_eq!(clock.place(&step).started, 140.0);
    }

    #[test]
    fn an_asymmetric_exchange_is_off_by_at_most_the_error() {
        // 1000 µs ahead; 50 µs there, 10 µs back, no time on the server.
        let clock = ServerClock::estimate(100.0, 1150, 1150, 160.0);
        assert!((clock.offset - 1000.0).abs() <= clock.error);
        assert_eq!(clock.error, 30.0);
    }
}
