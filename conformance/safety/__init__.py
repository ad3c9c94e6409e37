"""Account safety: what keeps a user's zone intact whatever stops a run (docs/safety.md).

- `statedir`: the per-user state directory (platformdirs), atomic JSON files, process liveness;
- `registry`: the runs of this machine (prefix, pid, host, start time), to tell live from dead;
- `zone_run_lock`: one run per zone on this machine; `lease`: one run per zone seen on the target;
- `journal`: the zone's entry point as found, written before any change, and its restore;
- `guard`: the steps a run takes before it touches the zone and after it is done;
- `recover`: `conformance recover`, for what a killed run left behind;
- `signals`: SIGTERM and SIGHUP end a run like Ctrl-C, so that its restore runs.
"""
