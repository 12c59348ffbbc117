//! What the Criterion benchmarks share.

use std::time::Duration;

use criterion::Criterion;

/// Short runs: `make bench` runs every group in well under a minute.
pub fn short_runs() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(30)
}
