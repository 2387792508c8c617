//! isrcheck-itf-reader FILE...: reads ITF files written by `isrcheck export --format itf`
//! with the `itf` crate into the fixed Rust types below, one set per model (partition,
//! kraft, cluster). The types are written from the models' state JSON
//! (docs/trace-format.md), not derived from any export, and refuse unknown fields: a
//! variable that changes type between states (a variant then a bare integer, `{}` then
//! `#map`, a field that appears and disappears) fails to deserialise. Each trace must
//! also declare a type for every variable in `#meta.varTypes`. Exit 0 when every file
//! reads, 1 otherwise (with the crate's error).
use std::collections::BTreeMap;
use std::process::ExitCode;

use serde::de::DeserializeOwned;
use serde::Deserialize;

type Int = i64;

/// Quint's Option: {"tag": "Some", "value": v} or {"tag": "None", "value": {"#tup": []}}.
#[derive(Debug, Deserialize)]
#[serde(tag = "tag", content = "value")]
enum Opt<T> {
    Some(T),
    None,
}

/// A value that is a node id or a word (leader_after: an id, or "no quorum").
#[derive(Debug, Deserialize)]
#[serde(tag = "tag", content = "value")]
#[allow(dead_code)]
enum IdOrWord {
    Int(Int),
    Str(String),
}

/// The action parameters (`mbt::nondetPicks`): one record type per trace whose fields
/// are Options; which fields a trace has depends on the actions in it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Picks {
    #[serde(default)] broker: Option<Opt<Int>>,
    #[serde(default)] candidate: Option<Opt<Int>>,
    #[serde(default)] controller: Option<Opt<Int>>,
    #[serde(default)] directory_assigned_first: Option<Opt<bool>>,
    #[serde(default)] disk_lost: Option<Opt<bool>>,
    #[serde(default)] follower: Option<Opt<Int>>,
    // ShrinkIsr of several followers in one AlterPartition (Partition.maybeShrinkIsr).
    #[serde(default)] followers: Option<Opt<Vec<Int>>>,
    #[serde(default)] layer: Option<Opt<String>>,
    #[serde(default)] leader: Option<Opt<Int>>,
    #[serde(default)] leader_after: Option<Opt<Opt<IdOrWord>>>,
    #[serde(default)] mode: Option<Opt<String>>,
    #[serde(default)] node: Option<Opt<Int>>,
    #[serde(default)] record: Option<Opt<Int>>,
    #[serde(default)] response_lost: Option<Opt<bool>>,
    // Reassign (KIP-455): the target replica set.
    #[serde(default)] target: Option<Opt<Vec<Int>>>,
    #[serde(default)] voter: Option<Opt<Int>>,
}

// ---- the partition model (spec/describe.cc) ---------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Consumer { position: Int, read: Vec<Int> }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Controller {
    active: Opt<Int>,
    elr: Vec<Int>,
    epoch: Int,
    fenced: Vec<Int>,
    isr: Vec<Int>,
    last_known_elr: Vec<Int>,
    leader: Opt<Int>,
    leader_epoch: Int,
    partition_epoch: Int,
    quorum: bool,
    registered_epochs: Vec<Int>,
    replicas: Vec<Int>,
    unclean_elected: bool,
    // ZooKeeper mode only (protocol generations before KRaft).
    #[serde(default)] deposed: Option<Opt<Int>>,
    #[serde(default)] deposed_wrote: Option<bool>,
    #[serde(default)] mode: Option<String>,
    #[serde(default)] state_controller_epoch: Option<Int>,
    #[serde(default)] vacant: Option<bool>,
    // Brokers with a LeaderAndIsr demotion still queued behind a newer one (only while one is).
    #[serde(default)] queued_demotion: Option<Opt<Vec<Int>>>,
    // KIP-858: brokers whose assigned log directory is offline (only while one is).
    #[serde(default)] directory_offline: Option<Opt<Vec<Int>>>,
    // ZooKeeper mode: brokers whose queued LeaderAndIsr makes them truncate (only while one does).
    #[serde(default)] queued_reconcile: Option<Opt<Vec<Int>>>,
    // KIP-455 reassignment: replicas being added and removed (only during one).
    #[serde(default)] adding: Option<Opt<Vec<Int>>>,
    #[serde(default)] removing: Option<Opt<Vec<Int>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Faults {
    clean_shutdowns: Int,
    crashes: Int,
    cuts: Int,
    disk_losses: Int,
    lossy: Int,
    #[serde(default)] leader_moves: Option<Int>,
    #[serde(default)] lost_produce_responses: Option<Int>,
    // Process pauses (faults.max_pauses), written once one happened.
    #[serde(default)] pauses: Option<Opt<Int>>,
    // Reassignments started (bounds.max_reassignments), written once one happened.
    #[serde(default)] reassignments: Option<Opt<Int>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct History { hw_regressed: bool }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Producer { current: Int, outcomes: BTreeMap<Int, String>, retries: Int }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct FetchResponse {
    entry: Opt<(Int, Int)>,
    kind: String,
    leader: Opt<Int>,
    leader_epoch: Int,
    leader_hw: Int,
    leader_leo: Int,
    offset: Int,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Follower { broker_epoch: Int, fetch_offset: Int, node: Int }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct LeaderState { alter_partition: Opt<Vec<Int>>, epoch_start_offset: Int, followers: Vec<Follower> }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct View {
    isr: Vec<Int>,
    leader: Opt<Int>,
    leader_epoch: Int,
    partition_epoch: Int,
    // The broker's view of the assignment, with reassignment only (KIP-455).
    #[serde(default)] replicas: Option<Vec<Int>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Replica {
    fetch_response: Opt<FetchResponse>,
    flushed: Int,
    hw: Int,
    hw_checkpoint: Int,
    leader_state: Opt<LeaderState>,
    leo: Int,
    log: Vec<(Int, Int)>,
    needs_truncation: bool,
    // KIP-858: a replica back on a new disk (written only while set).
    #[serde(default)] new_directory: Option<Opt<bool>>,
    role: String,
    view: Opt<View>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ZooKeeperSession { controller_epoch_seen: Int, session: bool, znode_epoch: Int }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Node {
    alive: bool,
    broker: bool,
    broker_epoch: Int,
    cut: Vec<Int>,
    id: Int,
    last_stop: String,
    replica: Opt<Replica>,
    voter: bool,
    #[serde(default)] zookeeper: Option<ZooKeeperSession>,
    // A paused process (faults.max_pauses; written only while paused).
    #[serde(default)] paused: Option<Opt<bool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PartitionState {
    consumer: Consumer,
    controller: Controller,
    faults: Faults,
    history: History,
    nodes: Vec<Node>,
    producer: Producer,
    #[serde(rename = "mbt::actionTaken")] action: String,
    #[serde(rename = "mbt::nondetPicks")] picks: Picks,
}

// ---- the KRaft quorum model (spec/kraft/kraft_describe.cc) ------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct KraftFaults {
    appends: Int,
    crashes: Int,
    cuts: Int,
    disk_losses: Int,
    lost_responses: Int,
    // With bounds.max_voter_changes > 0 (KIP-853), in every state of the trace.
    #[serde(default)] voter_changes: Option<Int>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct KraftHistory {
    commit_conflict: bool,
    committed: Vec<Vec<Int>>,
    committed_in: Vec<Int>,
    leaders: BTreeMap<Int, Vec<Int>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct KraftLeaderState {
    end_offsets: Vec<Int>,
    epoch_start_offset: Int,
    // With bounds.max_voter_changes > 0 (KIP-853).
    #[serde(default)] end_offsets_new_directory: Option<Vec<Int>>,
    #[serde(default)] caught_up: Option<Vec<Int>>,
}

// A KIP-853 VotersRecord in a voter's log (with bounds.max_voter_changes > 0).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct KraftVotersRecord { new_directory: Vec<Int>, offset: Int, voters: Vec<Int> }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct KraftNode {
    alive: bool,
    cut: bool,
    epoch: Int,
    #[serde(default)] granted: Option<Opt<Vec<Int>>>,
    hw: Int,
    id: Int,
    leader: Opt<Int>,
    #[serde(default)] leader_state: Option<Opt<KraftLeaderState>>,
    leo: Int,
    log: Vec<(Int, Int)>,
    new_directory: bool,
    role: String,
    voted_for: Opt<Int>,
    voter: bool,
    #[serde(default)] voters_records: Option<Vec<KraftVotersRecord>>,
    // In the cluster model: the node hosting the voter, and the record id of each entry.
    #[serde(default)] node: Option<Int>,
    #[serde(default)] records: Option<Vec<Opt<Int>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct KraftState {
    faults: KraftFaults,
    history: KraftHistory,
    nodes: Vec<KraftNode>,
    #[serde(rename = "mbt::actionTaken")] action: String,
    #[serde(rename = "mbt::nondetPicks")] picks: Picks,
}

// ---- the cluster model (spec/cluster/cluster_describe.cc) -------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Image {
    elr: Vec<Int>,
    fenced: Vec<Int>,
    isr: Vec<Int>,
    last_known_elr: Vec<Int>,
    leader: Opt<Int>,
    leader_epoch: Int,
    partition_epoch: Int,
    registered_epochs: Vec<Int>,
    unclean_elected: bool,
    #[serde(default)] directory_offline: Option<Opt<Vec<Int>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct AwaitingCommit { answer: String, node: Int }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct MetadataRecord {
    decision: String,
    id: Int,
    image: Image,
    #[serde(default)] awaiting_commit: Option<Opt<AwaitingCommit>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct PartitionEpoch { leader: Opt<Int>, leader_epoch: Int }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Metadata {
    committed: Image,
    committed_offset: Int,
    committed_partition_epochs: BTreeMap<Int, PartitionEpoch>,
    records: Vec<MetadataRecord>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Quorum { faults: KraftFaults, history: KraftHistory, nodes: Vec<KraftNode> }

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ClusterState {
    consumer: Consumer,
    controller: Controller,
    faults: Faults,
    history: History,
    metadata: Metadata,
    nodes: Vec<Node>,
    producer: Producer,
    quorum: Quorum,
    #[serde(rename = "mbt::actionTaken")] action: String,
    #[serde(rename = "mbt::nondetPicks")] picks: Picks,
}

/// Reads one trace at type S; the number of states, or why not.
fn read_as<S: DeserializeOwned>(text: &str) -> Result<usize, String> {
    let trace = itf::trace_from_str::<S>(text).map_err(|e| e.to_string())?;
    for var in &trace.vars {
        if !trace.meta.var_types.contains_key(var) {
            return Err(format!("#meta.varTypes has no type for variable {var}"));
        }
    }
    if trace.vars.is_empty() || trace.states.is_empty() {
        return Err("no variables or no states".to_string());
    }
    Ok(trace.states.len())
}

fn read(path: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let document: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let source = document["#meta"]["source"].as_str().unwrap_or("").to_string();
    let states = match source.as_str() {
        "isrcheck partition model" => read_as::<PartitionState>(&text)?,
        "isrcheck kraft model" => read_as::<KraftState>(&text)?,
        "isrcheck cluster model" => read_as::<ClusterState>(&text)?,
        other => return Err(format!("#meta.source {other:?} names no model this reader knows")),
    };
    Ok(format!("{source}, {states} states"))
}

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: isrcheck-itf-reader FILE...");
        return ExitCode::from(2);
    }
    let mut failed = 0;
    for path in &paths {
        match read(path) {
            Ok(what) => println!("ok: {path}: {what}"),
            Err(why) => {
                println!("FAILED: {path}: {why}");
                failed += 1;
            }
        }
    }
    println!("{} passed, {} failed", paths.len() - failed, failed);
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) }
}
