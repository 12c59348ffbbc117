//! The summary at exit (`EXECUTOR_STATS=1`, `executor-run --stats`): one
//! row per address and kernel with its launches, their total, median and
//! 99th-percentile time, and the bytes they moved.

use std::{
    collections::{BTreeMap, HashMap},
    fmt::Write,
};

use super::timeline::{Op, OpKind, kernel_name};

#[derive(Default)]
struct Row {
    /// Each launch's time, in microseconds.
    times: Vec<f64>,
    bytes_in: u64,
    bytes_out: u64,
}

/// An async launch not yet awaited.
struct InFlight {
    address: String,
    session: Option<i64>,
    kernel: String,
    started: f64,
}

/// The launches seen so far, by address and kernel.
#[derive(Default)]
pub struct Stats {
    rows: BTreeMap<(String, String), Row>,
    in_flight: HashMap<i64, InFlight>,
}

impl Stats {
    /// Counts `op`, which ended at `ended`, if it completes a launch: a
    /// `launch`, or the `await` (or the `close`) of a `launch_async`, which
    /// counts from its start.
    pub fn record(&mut self, op: &Op, ended: f64) {
        match (op.kind, op.token) {
            (OpKind::Launch, _) => {
                let kernel = kernel_name(op.symbol.unwrap_or_default());
                let bytes = op.bytes.unwrap_or_default();
                self.add(&op.address, kernel, ended - op.started, bytes);
            }
            (OpKind::LaunchAsync, Some(token)) => {
                let launch = InFlight {
                    address: op.address.clone(),
                    session: op.session,
                    kernel: kernel_name(op.symbol.unwrap_or_default()).to_owned(),
                    started: op.started,
                };
                self.in_flight.insert(token, launch);
            }
            (OpKind::Await, Some(token)) => {
                if let Some(launch) = self.in_flight.remove(&token) {
                    self.finish(&launch, ended);
                }
            }
            (OpKind::Close, _) => {
                let closed: Vec<i64> = self
                    .in_flight
                    .iter()
                    .filter(|(_, launch)| {
                        launch.address == op.address && launch.session == op.session
                    })
                    .map(|(token, _)| *token)
                    .collect();
                for token in closed {
                    let launch = self.in_flight.remove(&token).expect("listed above");
                    self.finish(&launch, ended);
                }
            }
            _ => {}
        }
    }

    /// At exit: the launches still in flight end now.
    pub fn unfinished(&mut self, ended: f64) {
        for (_, launch) in std::mem::take(&mut self.in_flight) {
            self.finish(&launch, ended);
        }
    }

    fn finish(&mut self, launch: &InFlight, ended: f64) {
        self.add(
            &launch.address,
            &launch.kernel,
            ended - launch.started,
            (0, 0),
        );
    }

    pub fn add(&mut self, address: &str, kernel: &str, micros: f64, bytes: (u64, u64)) {
        let key = (address.to_owned(), kernel.to_owned());
        let row = self.rows.entry(key).or_default();
        row.times.push(micros);
        row.bytes_in += bytes.0;
        row.bytes_out += bytes.1;
    }

    /// The table, a header line then one line per row.
    pub fn table(&self) -> String {
        let mut lines = vec![
            [
                "address",
                "kernel",
                "launches",
                "total ms",
                "median ms",
                "p99 ms",
                "bytes in",
                "bytes out",
            ]
            .map(str::to_owned),
        ];
        for ((address, kernel), row) in &self.rows {
            let mut times = row.times.clone();
            times.sort_by(f64::total_cmp);
            let ms = |micros: f64| format!("{:.3}", micros / 1000.0);
            lines.push([
                address.clone(),
                kernel.clone(),
                times.len().to_string(),
                ms(times.iter().sum()),
                ms(nearest_rank(&times, 50)),
                ms(nearest_rank(&times, 99)),
                row.bytes_in.to_string(),
                row.bytes_out.to_string(),
            ]);
        }
        let widths: Vec<usize> = (0..8)
            .map(|column| {
                lines
                    .iter()
                    .map(|line| line[column].len())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut table = String::new();
        for line in &lines {
            let mut text = String::new();
            for (column, cell) in line.iter().enumerate() {
                let width = widths[column];
                // Names to the left, numbers to the right.
                let _ = if column < 2 {
                    write!(text, "{cell:<width$}  ")
                } else {
                    write!(text, "{cell:>width$}  ")
                };
            }
            table.push_str(text.trim_end());
            table.push('\n');
        }
        table
    }
}

/// The `percent`th percentile of `sorted` by the nearest-rank method.
fn nearest_rank(sorted: &[f64], percent: usize) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_ranks() {
        let times: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(nearest_rank(&times, 50), 100.0);
        assert_eq!(nearest_rank(&times, 99), 198.0);
        assert_eq!(nearest_rank(&[7.0], 99), 7.0);
    }

    #[test]
    fn launches_count_when_they_complete_async_ones_from_their_start() {
        let mut stats = Stats::default();
        stats.record(&Op::for_test(OpKind::Launch, None, 0.0), 1000.0);
        stats.record(&Op::for_test(OpKind::LaunchAsync, Some(7), 2000.0), 2100.0);
        stats.record(&Op::for_test(OpKind::LaunchAsync, Some(8), 3000.0), 3100.0);
        stats.record(&Op::for_test(OpKind::Call, None, 3100.0), 3200.0);
        assert_eq!(stats.rows[&("local".into(), "k".into())].times, [1000.0]);
        stats.record(&Op::for_test(OpKind::Await, Some(7), 4000.0), 5000.0);
        // Never awaited: counted at the close that waited for it.
        stats.record(&Op::for_test(OpKind::Close, None, 6000.0), 7000.0);
        let row = &stats.rows[&("local".into(), "k".into())];
        assert_eq!(row.times, [1000.0, 3000.0, 4000.0]);
        assert_eq!((row.bytes_in, row.bytes_out), (8, 4));
        assert!(stats.in_flight.is_empty());
    }

    #[test]
    fn one_row_per_address_and_kernel() {
        let mut stats = Stats::default();
        stats.add("local", "k", 1000.0, (8, 4));
        stats.add("local", "k", 3000.0, (8, 4));
        stats.add("10.0.0.1:9000", "k", 500.0, (0, 0));
        let table = stats.table();
        let lines: Vec<Vec<&str>> = table
            .lines()
            .map(|line| line.split_whitespace().collect())
            .collect();
        assert_eq!(lines.len(), 3, "{table}");
        assert_eq!(
            lines[2],
            ["local", "k", "2", "4.000", "1.000", "3.000", "16", "8"]
        );
        assert_eq!(lines[1][..3], ["10.0.0.1:9000", "k", "1"]);
    }
}
