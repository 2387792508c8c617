// The toy model of bench/bfs_bench.cc (isr::toy::CounterModel in tests/toy_models.h)
// written against the `stateright` crate, so that bench/compare/run.sh can measure
// isrcheck's engine against Stateright's BFS checker on the same state space.
//
// The model: N processes each increment their own counter (one byte) up to K. The state
// is 8 bytes as in isrcheck (counters of processes >= N stay 0); the actions of a state
// are the processes whose counter is below K, in process order. Reachable states:
// (K+1)^N; successors computed: N*K*(K+1)^(N-1) (every state but those at K enables one
// action per counter below K).
//
//   toy-stateright [--processes N] [--max-count K] [--threads T]
//     defaults 8, 7, 1 (the 8^8 toy); prints one line of key=value fields.
//
// Counting, apples to apples with isrcheck (checked against Stateright 0.31.0's
// src/checker/bfs.rs):
// - Stateright's `state_count()` starts at the number of initial states and adds one
//   for every successor `next_state` returns inside the boundary, visited before or not.
//   isrcheck's `states_generated` is the same: initial states plus every successor
//   computed. TLC's "states generated" counts the same way. All three are 1 +
//   N*K*(K+1)^(N-1) here: 117,440,513 for the 8^8 toy.
// - Stateright's `unique_state_count()` is the size of its visited map (64-bit
//   fingerprints of the state, like isrcheck's `--fingerprint 64`; isrcheck's default
//   is 128 bits): isrcheck's `distinct_states`, TLC's "distinct states found".
// - Stateright stops expanding once no property is still awaiting a discovery, so a
//   model with no property at all explores its initial states only. isrcheck's toy has
//   no property; here one `always` property that is trivially true keeps every state
//   expanded at the cost of one call per distinct state (nothing is checked).
// - No symmetry reduction in any of the three (isrcheck's bench runs the toy with
//   symmetry off).
// - Stateright keeps, with every queued state, the path of action indices from an
//   initial state (to rebuild a counterexample); that is its design, not this model's,
//   and is part of the cost measured.

use stateright::{Checker, Model, Property};
use std::process::exit;
use std::time::Instant;

const MAX_PROCESSES: usize = 8;

struct Toy {
    processes: usize,
    max_count: u8,
}

impl Model for Toy {
    type State = [u8; MAX_PROCESSES];
    type Action = u8;

    fn init_states(&self) -> Vec<Self::State> {
        vec![[0; MAX_PROCESSES]]
    }

    fn actions(&self, state: &Self::State, actions: &mut Vec<Self::Action>) {
        for (process, &count) in state.iter().enumerate().take(self.processes) {
            if count < self.max_count {
                actions.push(process as u8);
            }
        }
    }

    fn next_state(&self, state: &Self::State, process: Self::Action) -> Option<Self::State> {
        let mut next = *state;
        next[process as usize] += 1;
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        // Never violated: only there so that Stateright keeps expanding (see the top).
        vec![Property::always("explore-everything", |_, _| true)]
    }
}

fn usage(message: &str) -> ! {
    eprintln!("toy-stateright: {message}");
    eprintln!("usage: toy-stateright [--processes 1..8] [--max-count 1..255] [--threads >=1]");
    exit(2);
}

fn parse<T: std::str::FromStr + PartialOrd + std::fmt::Display>(
    flag: &str,
    value: Option<String>,
    low: T,
    high: T,
) -> T {
    let Some(text) = value else {
        usage(&format!("{flag} needs a value"));
    };
    match text.parse::<T>() {
        Ok(v) if v >= low && v <= high => v,
        _ => usage(&format!("{flag} must be an integer from {low} to {high}, got \"{text}\"")),
    }
}

fn main() {
    let mut processes = 8usize;
    let mut max_count = 7u8;
    let mut threads = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--processes" => processes = parse(&flag, args.next(), 1, MAX_PROCESSES),
            "--max-count" => max_count = parse(&flag, args.next(), 1, 255),
            "--threads" => threads = parse(&flag, args.next(), 1, 256),
            _ => usage(&format!("unknown argument \"{flag}\"")),
        }
    }

    let start = Instant::now();
    let checker = Toy {
        processes,
        max_count,
    }
    .checker()
    .threads(threads)
    .spawn_bfs()
    .join();
    let seconds = start.elapsed().as_secs_f64();
    // A discovery would mean the trivially true property failed: a bug, not a result.
    if !checker.discoveries().is_empty() {
        eprintln!("toy-stateright: unexpected discovery");
        exit(4);
    }
    println!(
        "tool=stateright threads={} processes={} max_count={} distinct={} generated={} depth={} search_wall_s={:.3}",
        threads,
        processes,
        max_count,
        checker.unique_state_count(),
        checker.state_count(),
        checker.max_depth(),
        seconds
    );
}
