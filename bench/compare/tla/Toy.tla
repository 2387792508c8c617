--------------------------------- MODULE Toy ---------------------------------
(***************************************************************************)
(* The toy model of bench/bfs_bench.cc (isr::toy::CounterModel in          *)
(* tests/toy_models.h) for TLC, so that bench/compare/run.sh can measure   *)
(* isrcheck's engine against TLC on the same state space: N processes each *)
(* increment their own counter up to K.  Nothing is checked (isrcheck's    *)
(* toy has no property either): the run is the exploration alone.          *)
(*                                                                         *)
(* Reachable states: (K+1)^N.  TLC's "states generated" counts the initial *)
(* state and every successor computed, visited before or not, as           *)
(* isrcheck's states_generated and Stateright's state_count() do:          *)
(* 1 + N*K*(K+1)^(N-1), 117,440,513 for N = 8, K = 7 (Toy.cfg).            *)
(* The final state (every counter at K) has no successor: run TLC with     *)
(* -deadlock, which turns deadlock checking off.                           *)
(***************************************************************************)
EXTENDS Naturals

CONSTANTS N, K  \* processes; the largest value of a counter

VARIABLE c      \* c[p]: process p's counter

Procs == 1..N

Init == c = [p \in Procs |-> 0]

\* Process p increments its counter (isrcheck's action Increment(process=p-1)).
Increment(p) == c[p] < K /\ c' = [c EXCEPT ![p] = @ + 1]

Next == \E p \in Procs : Increment(p)

Spec == Init /\ [][Next]_c

TypeOK == c \in [Procs -> 0..K]
==============================================================================
