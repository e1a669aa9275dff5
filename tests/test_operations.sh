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
'update jobid='*' admincomment='*)
  [ -e '$work/update-fails' ] && { echo "slurm_update error: Access/permission denied" >&2; exit 1; }
  printf '%s\n' "\$*" >>'$work/updates' ;;
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

# --- a rebuild updates the job's AdminComment; show --job compares them ---
fingerprint() { sed -n 's/^fingerprint //p' "$1"; }
old_print=$(fingerprint "$work/job1/n00.rt")
job_line() {  # job_line ADMINCOMMENT: job 1 running on n[00-07], as scontrol prints it
  echo "JobId=1 JobName=wrap JobState=RUNNING Reason=None NodeList=n[00-07] NumNodes=8 AdminComment=$1 Comment=(null)"
}
job_line "angara: balanced, fingerprint $old_print, tables $work/job1, verified" >"$work/jobs"
expect "show --job: the AdminComment names the installed tables" 0 "$tool" show --job 1 --config "$conf" \
  --tables "$work/job1"
contains "one fingerprint, OK" "$work/out" "verdict      OK"
# A rebuild around n05 (the stand-in's node states name it down) rewrites
# the tables and the AdminComment, in one fingerprint.
printf 'NodeName=n05 Arch=x86_64 CoresPerSocket=1 State=DOWN Reason=test\n' >"$work/nodes"
: >"$work/updates"
expect "rebuild around a failed node" 0 "$tool" rebuild --job 1 --config "$conf" --tables "$work/job1" \
  --log "$work/log/angara-route.log" --quiesced
new_print=$(fingerprint "$work/job1/n00.rt")
[ -n "$new_print" ] && [ "$new_print" != "$old_print" ] && ok "the rebuild wrote new tables" ||
  not_ok "the rebuild wrote new tables ($old_print -> $new_print)"
contains "the rebuild set the AdminComment to the new fingerprint" "$work/updates" \
  "update jobid=1 admincomment=angara: balanced, fingerprint $new_print, tables $work/job1, verified; rebuilt around failed routers n05"
contains "the log records it" "$work/log/angara-route.log" "job 1: AdminComment angara: balanced, fingerprint $new_print"
# Before the update (or had it failed) show --job flags the difference.
job_line "angara: balanced, fingerprint $old_print, tables $work/job1, verified" >"$work/jobs"
expect "show --job: an AdminComment naming the old tables is not OK" 1 "$tool" show --job 1 --config "$conf" \
  --tables "$work/job1"
contains "show --job says the tables are not those the AdminComment names" "$work/out" \
  "verdict      the installed tables are not those the job's AdminComment names"
contains "it names both fingerprints" "$work/out" \
  "AdminComment names fingerprint $old_print, the installed tables have $new_print"
expect "show --job --json names the AdminComment's fingerprint" 1 "$tool" show --job 1 --json --config "$conf" \
  --tables "$work/job1"
contains "JSON: the AdminComment's fingerprint" "$work/out" "\"admin_comment_fingerprint\":\"$old_print\""
job_line "angara: balanced, fingerprint $new_print, tables $work/job1, verified; rebuilt around failed routers n05" \
  >"$work/jobs"
expect "show --job after the rebuild's update" 0 "$tool" show --job 1 --config "$conf" --tables "$work/job1"
contains "one fingerprint again, OK" "$work/out" "verdict      OK"
# An update scontrol refuses: the tables are written, the status says the
# AdminComment is stale (6), and the log says why.
touch "$work/update-fails"
: >"$work/nodes"
expect "a rebuild whose AdminComment update fails: exit 6" 6 "$tool" rebuild --job 1 --config "$conf" \
  --tables "$work/job1" --log "$work/log/angara-route.log" --quiesced
contains "it says the AdminComment still names the old tables" "$work/err" \
  "job 1: its tables were written, but its AdminComment still names the old ones"
rm -f "$work/update-fails"
: >"$work/nodes"
expect "show --job of an unknown job" 3 "$tool" show --job 99 --config "$conf" --tables "$work/tables"

# --- the rebuild's record: log file and syslog ---
# A dry run of job 1 (running, with its tables in $work/job1) on a machine
# without failures.
expect "rebuild --dry-run logs to a writable file" 0 "$tool" rebuild --job 1 --dry-run --config "$conf" \
  --tables "$work/job1" --log "$work/log/angara-route.log"
contains "the log has the run's record" "$work/log/angara-route.log" "rebuild["
# /dev/full takes the open but no write (even for root).
if [ -S /dev/log ]; then
  expect "a log that cannot be written, with syslog: exit 0" 0 "$tool" rebuild --job 1 --dry-run --config "$conf" \
    --tables "$work/job1" --log /dev/full
  contains "it says syslog has the record" "$work/err" "syslog has the record"
else
  expect "neither the log nor syslog: the record is lost, exit 10" 10 "$tool" rebuild --job 1 --dry-run \
    --config "$conf" --tables "$work/job1" --log /dev/full
  contains "it says the record is lost" "$work/err" "the run's record is lost: neither the log /dev/full nor syslog took it"
  expect "the same in JSON" 10 "$tool" rebuild --job 1 --dry-run --json --config "$conf" --tables "$work/job1" \
    --log /dev/full
  contains "the JSON names the status" "$work/out" '"exit_status":10'
fi
"$tool" --help >"$work/help"
contains "--help lists exit status 10" "$work/help" "10 a rebuild's record reached neither its log file nor syslog"
man_page="$data/../../man/angara-route.8"
if sed -n '/^\.SH EXIT STATUS/,/^\.SH EXAMPLES/p' "$man_page" | grep -qx '\.B 10'; then
  ok "angara-route(8) documents exit status 10"; else not_ok "angara-route(8) documents exit status 10"; fi

# --- install-defaults: every node's default table, verified, before the first job ---
expect "install-defaults writes the whole machine's default tables" 0 "$tool" install-defaults --config "$conf" \
  --tables "$work/fresh/var/routes"
contains "it reports the verified routing" "$work/out" "job default: "
contains "it names the nodes and the directory" "$work/out" \
  "default tables of n[00-15] (16 nodes) written to $work/fresh/var/routes"
count=$(ls "$work/fresh/var/routes"/*.rt 2>/dev/null | wc -l)
[ "$count" -eq 16 ] && ok "one table per node (16)" || not_ok "$count tables, wanted 16"
contains "the tables are job default's" "$work/fresh/var/routes/n07.rt" "job default"
expect "verify --tables passes on them" 0 "$tool" verify --config "$conf" --tables "$work/fresh/var/routes"
contains "verify says OK" "$work/out" "verdict      OK"
# Some nodes, around a failed router: the other nodes' tables stay.
mkdir "$work/some"
expect "install-defaults --node --down" 0 "$tool" install-defaults --config "$conf" --tables "$work/some" \
  --node 'n[00-03]' --down n05
contains "it routes around the failed router" "$work/out" "failed routers n05"
count=$(ls "$work/some"/*.rt | wc -l)
[ "$count" -eq 4 ] && ok "--node writes only those nodes (4)" || not_ok "--node wrote $count tables, wanted 4"
expect "--node of a failed router refused" 3 "$tool" install-defaults --config "$conf" --tables "$work/some" \
  --node n05 --down n05
expect "--node outside the machine refused" 3 "$tool" install-defaults --config "$conf" --tables "$work/some" \
  --node n99
# A node holding a running job's table keeps it.
cp "$work/job1/n00.rt" "$work/some/n00.rt"
expect "a job's table is never replaced" 3 "$tool" install-defaults --config "$conf" --tables "$work/some" \
  --node 'n[00-03]'
contains "the refusal names the node and the job" "$work/err" "of n00 (job 1) are a job's"
contains "the job's table is still there" "$work/some/n00.rt" "job 1"
expect "install-defaults --dry-run" 0 "$tool" install-defaults --config "$conf" --tables "$work/none" --dry-run
[ ! -e "$work/none" ] && ok "a dry run writes nothing" || not_ok "a dry run wrote $work/none"
expect "install-defaults with an unknown algorithm" 3 "$tool" install-defaults --config "$conf" \
  --tables "$work/none" --algorithm nosuch
expect "install-defaults rejects an argument" 2 "$tool" install-defaults extra

# make install creates the rebuild log's directory, mode 0755.
if install_from_build install DESTDIR="$work/inst" >"$work/install.log" 2>&1; then
  ok "make install DESTDIR"
  localstatedir=$(sed -n 's/^localstatedir = //p' "$TOP_BUILDDIR/Makefile" | sed "s|\${prefix}|$(sed -n 's/^prefix = //p' "$TOP_BUILDDIR/Makefile")|")
  if [ -d "$work/inst$localstatedir/log" ]; then ok "make install creates $localstatedir/log"
  else not_ok "make install creates $localstatedir/log"; fi
  mode=$(stat -c %a "$work/inst$localstatedir/log" 2>/dev/null)
  [ "$mode" = 755 ] && ok "the log directory is mode 0755" || not_ok "the log directory is mode '$mode'"
  expect "a rebuild logs into the installed log directory" 0 "$tool" rebuild --job 1 --dry-run --config "$conf" \
    --tables "$work/job1" --log "$work/inst$localstatedir/log/angara-route.log"
  if grep -q "cannot write the log" "$work/err"; then not_ok "no 'cannot write the log'"; else ok "no 'cannot write the log'"; fi
else
  not_ok "make install DESTDIR"
  sed 's/^/    /' "$work/install.log" | tail -20
fi

# --- installed examples and man pages name what is installed ---
# Every absolute path the installed examples and man pages name exists under
# DESTDIR once the documented steps have run (README, spank-angara(8),
# angara-route(8)), or is outside this package (Slurm's files, the system's,
# examples of the administrator's own choice).
paths_named() {  # the absolute paths in FILE..., troff escapes undone
  sed -e 's/\\-/-/g' -e 's/\\e//g' -e 's/\\f[BIRP]//g' "$@" |
    grep -oE "(^|[][ \"'=(,:])/[A-Za-z0-9_.+/-]*[A-Za-z0-9_+/-]" | sed -E "s/^[][ \"'=(,:]//" | sort -u
}
not_ours=' /tmp/rt-load.svg /etc/slurm/select_angara.conf /etc/slurm/plugstack.conf /etc/slurm/plugstack.conf.d/ /etc/slurm/slurm.conf /etc/slurm/topology.conf.new
  /usr/lib/x86_64-linux-gnu/slurm-wlm /dev/log /tmp /tmp/rt /etc/angara.yml /shared/angara/cache /srv/angara/shared
  /.angara/lock /.angara/sets/ /.angara/gens/ /spank-angara.so '
prefix=$(sed -n 's/^prefix = //p' "$TOP_BUILDDIR/Makefile")
inst="$work/inst"
docdir=$(dirname "$(find "$inst" -name plugstack.conf.example)")
if [ -d "$docdir" ]; then
  named=$(paths_named "$docdir"/angara.yaml "$docdir"/plugstack.conf.example "$docdir"/job_submit.lua \
    "$docdir"/plugstack.conf.d/angara.conf $(find "$inst" -name '*.[58]'))
  sysconfdir=$("$tool" --help | sed -n 's|.*reads $ANGARA_CONFIG, then \(.*\)/angara/angara.yaml,|\1|p')
  # README 2: the machine, from the installed example.
  mkdir -p "$inst$sysconfdir/angara" && cp "$docdir/angara.yaml" "$inst$sysconfdir/angara/angara.yaml"
  # README 6: every node's default table, in the example's table directory.
  routes=$(sed -n 's/^  directory: //p' "$docdir/angara.yaml")
  expect "the documented install-defaults step" 0 "$tool" install-defaults --config "$docdir/angara.yaml" \
    --tables "$inst$routes"
  # spank-angara(8), PLACEMENT: node-states from cron; angara-route(8): the rebuild log.
  states=$(sed -n 's/^local NODE_STATES = "\(.*\)"/\1/p' "$docdir/job_submit.lua")
  expect "the documented node-states step" 0 "$tool" node-states --output "$inst$states"
  expect "node-states takes the node list strigger appends" 0 "$tool" node-states --output "$inst$states" 'n[03-04]'
  expect "node-states refuses a word that is no hostlist" 2 "$tool" node-states --output "$inst$states" 'n[03-'
  log=$(printf '%s\n' $named | grep '/angara-route.log$' | head -1)
  expect "a rebuild writes the documented log" 0 "$tool" rebuild --job 1 --dry-run --config "$conf" \
    --tables "$work/job1" --log "$inst$log"
  missing=""
  for path in $named; do
    case "$not_ours" in *" $path "*|*" $path"$'\n'*) continue ;; esac
    [ -e "$inst$path" ] || missing="$missing $path"
  done
  [ -z "$missing" ] && ok "every path the installed examples and man pages name is in place" \
    || not_ok "named but neither installed nor made by a documented step:$missing"
  if grep -rq 'angara-node-states' "$inst"; then not_ok "nothing names angara-node-states"
  else ok "nothing names angara-node-states"; fi
else
  not_ok "no installed examples under $inst"
fi

# Under another prefix the installed examples and man pages name its
# directories: a configured scratch tree installs what needs no compiling.
mkdir "$work/cfg"
if (cd "$work/cfg" && "$data/../../configure" -q --prefix=/opt/angara-test >"$work/cfg.log" 2>&1 &&
    make -s -C conf install DESTDIR="$work/pinst" && make -s -C man install DESTDIR="$work/pinst" &&
    make -s -C cli installdirs DESTDIR="$work/pinst") >>"$work/cfg.log" 2>&1; then
  ok "configure --prefix=/opt/angara-test, install of the examples and man pages"
  pdoc="$work/pinst/opt/angara-test/share/doc/angara-route"
  leftover=$(grep -rl '/usr/local' "$work/pinst" | sed "s|$work/pinst||")
  [ -z "$leftover" ] && ok "no installed example or man page names /usr/local" \
    || not_ok "/usr/local named in:$(echo $leftover)"
  contains "plugstack.conf.example loads the prefix's plugin" "$pdoc/plugstack.conf.example" \
    "required /opt/angara-test/lib/slurm/spank-angara.so config=/opt/angara-test/etc/angara/angara.yaml"
  contains "job_submit.lua runs the prefix's angara-route" "$pdoc/job_submit.lua" \
    'local ANGARA_ROUTE = "/opt/angara-test/sbin/angara-route"'
  contains "angara.yaml says where it goes" "$pdoc/angara.yaml" "/opt/angara-test/etc/angara/angara.yaml"
  contains "spank-angara(8) names the prefix's angara-route" \
    "$work/pinst/opt/angara-test/share/man/man8/spank-angara.8" '\-\-program="/opt/angara-test/sbin/angara-route'
  [ -d "$work/pinst/opt/angara-test/var/log" ] && ok "installdirs makes the prefix's log directory" \
    || not_ok "installdirs makes the prefix's log directory"
  mode=$(stat -c %a "$pdoc/job_submit.lua")
  [ "$mode" = 644 ] && ok "the substituted examples are mode 0644" || not_ok "job_submit.lua is mode $mode"
else
  not_ok "configure --prefix=/opt/angara-test, install of the examples and man pages"
  sed 's/^/    /' "$work/cfg.log" | tail -20
fi

tap_summary
