#!/usr/bin/env bash
# What an administrator meets running the tool on a machine: show --job of a
# job that ended, the rebuild log, writing the default tables, and what
# `make install` puts in place.  Slurm is a stand-in scontrol
# ($ANGARA_SCONTROL) replaying recorded one-line output.
set -u
. "$(dirname "$0")/tap_lib.sh"

conf="$data/torus_4x4.yaml"
# The stand-in scontrol: "show job -o ID" prints the line of $work/jobs
# starting with JobId=ID, "show node -o" prints $work/nodes.
cat >"$work/scontrol" <<SCRIPT
#!/bin/sh
case "\$*" in
'show node -o') cat '$work/nodes' ;;
'show job -o '*) grep "^JobId=\$4 " '$work/jobs' || { echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1; } ;;
*) echo "scontrol: unexpected \$*" >&2; exit 1 ;;
esac
SCRIPT
chmod +x "$work/scontrol"
export ANGARA_SCONTROL="$work/scontrol"
: >"$work/nodes"

# --- show --job of a job that ended: its nodes hold the default table again ---
expect "default tables of the whole machine" 0 "$tool" generate --config "$conf" --output "$work/tables"
echo "JobId=1 JobName=wrap JobState=COMPLETED Reason=None NodeList=n[00-07] NumNodes=8" >"$work/jobs"
expect "show --job of a completed job exits 0" 0 "$tool" show --job 1 --config "$conf" --tables "$work/tables"
contains "it says the job ended, with Slurm's state" "$work/out" "the job ended (COMPLETED); its nodes' tables were restored"
contains "it says what is installed now" "$work/out" "job default on n[00-07] (8 nodes)"
if grep -q "belongs to job\|no table of job" "$work/out"; then not_ok "no per-node 'belongs to job' lines"
else ok "no per-node 'belongs to job' lines"; fi
expect "show --job --json of a completed job" 0 "$tool" show --job 1 --json --config "$conf" --tables "$work/tables"
contains "JSON: ended, restored, installed now" "$work/out" \
  '"ended":true,"tables":"'"$work/tables"'","installed_now":[{"job":"default","nodes":"n[00-07]","count":8}],"restored":true'
# A later job's prologue wrote its own tables on some of the nodes.
expect "job 2's tables on n[00-03]" 0 "$tool" generate --config "$conf" --nodes 'n[00-03]' --job-name 2 \
  --output "$work/job2"
cp "$work/job2"/n0[0-3].rt "$work/tables/"
echo "JobId=1 JobName=wrap JobState=CANCELLED Reason=None NodeList=n[00-07] NumNodes=8" >"$work/jobs"
expect "show --job of a cancelled job" 0 "$tool" show --job 1 --config "$conf" --tables "$work/tables"
contains "it names each owner now" "$work/out" "job 2 on n[00-03] (4 nodes), job default on n[04-07] (4 nodes)"
# An epilogue that has not run yet (or epilog=keep): the job's tables stay.
expect "job 1's tables" 0 "$tool" generate --config "$conf" --nodes 'n[00-07]' --job-name 1 --output "$work/job1"
echo "JobId=1 JobName=wrap JobState=COMPLETING Reason=None NodeList=n[00-07] NumNodes=8" >"$work/jobs"
expect "show --job while the epilogues run" 0 "$tool" show --job 1 --config "$conf" --tables "$work/job1"
contains "it says the job's tables are still installed" "$work/out" \
  "the job ended (COMPLETING); its tables are still installed"
# A running job is still shown as before.
echo "JobId=1 JobName=wrap JobState=RUNNING Reason=None NodeList=n[00-07] NumNodes=8" >"$work/jobs"
expect "show --job of a running job" 0 "$tool" show --job 1 --config "$conf" --tables "$work/job1"
contains "the running job's tables verify" "$work/out" "verdict      OK"
expect "show --job of a running job without its tables" 1 "$tool" show --job 1 --config "$conf" \
  --tables "$work/tables"
expect "show --job of an unknown job" 3 "$tool" show --job 99 --config "$conf" --tables "$work/tables"

tap_summary
