// Package update turns what runs observed into reviewed changes of the
// committed baselines: it merges observation shards (MergeObservations),
// plans each agent's file rewrite (Plan), writes the pull request's body
// (Update.WritePRBody), judges what a pull request's baselines allow that
// its base did not (Widening) and names who must review it (Codeowners).
//
// It reads baseline files and observations, never runs an agent, and
// needs no privilege. The words it shares with run reports (markdown
// escaping, locations, counts) are ci's.
package update
