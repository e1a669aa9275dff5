#!/bin/bash
# spank-angara(8) against an unprivileged user, on the live test cluster
# (cluster.sh: munged, slurmctld, 32 slurmd desmos[00-31] on this host).
#
# The plugin runs as root in every job's prologue and epilogue.  Jobs here
# are submitted as an ordinary user (angara-user, created when missing and
# removed afterwards if this run created it), who tries to make root read
# forged routes, write through planted symbolic links, write where the user
# chose, run a program the user chose, or flood the submission messages:
#
#   1. a forged result in a user-writable shared= directory: the directory is
#      untrusted, the job requeued and held with the reason, no node drained;
#      a forged result (wrong MAC) in a trusted directory: rejected, computed
#      locally, the job completes, no drain;
#   2. forged rows with their CRC fixed: the MAC fails, computed locally;
#   3. FP.lock a symbolic link to a new file under /etc: never created;
#   4. FP.shared a link to /etc/hostname, a table file a link: not followed;
#   5. a group/world-writable config, config directory, table directory,
#      shared directory, a readable or user-owned shared key: `angara-route
#      check` errors, the job held, the path in AdminComment; a user-edited
#      tables.directory gets nothing;
#   6. ANGARA_CONFIG, ANGARA_SCONTROL, ANGARA_THREADS, ANGARA_LOCK_TIMEOUT in
#      the job's environment: ignored by the prologue;
#   7. a 10 kB or control-character --angara-routing: refused at submission,
#      what is echoed is short and escaped;
#   8. shared= with a key still computes once per job (32 nodes), and the
#      prologue's time is printed as a comment.
#
# Needs root; skips (exit 77) otherwise.  ANGARA_CLUSTER_KEEP=1 keeps the
# cluster's directory (logs).  Run from `make check TESTS=cluster/test_security.sh`.
set -u
umask 022

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
require_plugin
for command in runuser useradd userdel python3; do
  if ! command -v $command >/dev/null; then
    echo "SKIP: $command is not installed"
    exit 77
  fi
done
take_cluster_lock

user=angara-user
created_user=no
state=""
etc_files=(/etc/angara-test-link-$$ /etc/angara-test-link2-$$ /etc/angara-test-rt-$$ /etc/angara-test-rt2-$$)
# Everything this run changed on the host: the cluster, the /etc names
# above, the state directory, the user when this run created it.
cleanup() {
  if [ -n "$state" ]; then
    "$here/cluster.sh" stop "$state" >/dev/null
    [ "${ANGARA_CLUSTER_KEEP:-0}" != 1 ] && rm -rf "$state"
  fi
  rm -f "${etc_files[@]}"
  [ $created_user = yes ] && userdel "$user" 2>/dev/null
}
trap cleanup EXIT
if ! id -u "$user" >/dev/null 2>&1; then
  useradd -M -d /nonexistent -s /bin/bash "$user" || { echo "ERROR: cannot create $user" >&2; exit 99; }
  created_user=yes
fi

state=$(mktemp -d "${TMPDIR:-/tmp}/angara-sec.XXXXXX") || exit 99
chmod 0755 "$state"
config=$state/angara.yaml
tables=$state/tables
shared=$state/shared
key=$state/shared.key
work=$state/work           # root's scratch, private
uhome=$state/u             # the user's own directory (job cwd, outputs, forgeries)
mkdir -p "$tables" "$shared" "$work" "$uhome"
chown "$user:" "$uhome"
chmod 0700 "$work"
export SLURM_CONF=$state/etc/slurm.conf

cat >"$config" <<EOF
machine:
  torus: 4x2x2x2
  nodes: desmos[00-31]
routing:
  algorithm: bfs
tables:
  directory: $tables
EOF

as_user() { runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"; }
# sbatch as the user, from the user's directory; prints what sbatch prints.
user_sbatch() { (cd "$uhome" && as_user sbatch --parsable -D "$uhome" "$@"); }
comment() { echo "# $*"; }

# What became of a job: completed, held (pending, requeued and held),
# cancelled, failed, or still STATE/REASON when LIMIT seconds ran out.
job_outcome() {
  local job=$1 limit=${2:-90} deadline state reason
  [[ $job =~ ^[0-9]+$ ]] || { echo "not submitted: $(echo "$job" | head -c 300)"; return; }
  deadline=$((SECONDS + limit))
  while :; do
    state=$(job_field "$job" JobState)
    reason=$(job_field "$job" Reason)
    case $state in
      COMPLETED) echo completed; return ;;
      CANCELLED) echo cancelled; return ;;
      FAILED | TIMEOUT | NODE_FAIL | BOOT_FAIL | OUT_OF_MEMORY) echo failed; return ;;
      PENDING) case $reason in *[Hh]eld*) echo held; return ;; esac ;;
    esac
    [ $SECONDS -lt $deadline ] || { echo "$state/$reason"; return; }
    sleep 0.5
  done
}

# The slurmd logs' growth since log_mark: new_log NODE... prints it.
declare -A log_size
log_mark() {
  local f
  for f in "$state"/log/slurmd-desmos*.log; do log_size[$f]=$(stat -c %s "$f"); done
}
new_log() {
  local node f
  for node in "$@"; do
    f=$state/log/slurmd-$node.log
    tail -c +$((${log_size[$f]:-0} + 1)) "$f" 2>/dev/null
  done
}
expand() { scontrol show hostnames "$1"; }

# Once the job is over (cancelled when held), its nodes out of COMPLETING:
# then no node of NODES may be drained and no drain reason may name angara.
# A drained node is resumed so that later cases can run on it.
settle() {
  local job=$1 nodes=$2 deadline
  case $(job_field "$job" JobState) in PENDING | RUNNING | CONFIGURING | REQUEUE*) scancel "$job" ;; esac
  deadline=$((SECONDS + 40))
  while [ $SECONDS -lt $deadline ]; do
    case $(job_field "$job" JobState) in COMPLETED | CANCELLED | FAILED | TIMEOUT | NODE_FAIL | "") break ;; esac
    sleep 0.5
  done
  while [ $SECONDS -lt $deadline ] && sinfo -h -N -n "$nodes" -o '%T' | grep -q 'comp'; do sleep 0.5; done
}
no_drain() {  # DESCRIPTION NODES
  local states reasons
  states=$(sinfo -h -N -n "$2" -o '%N %T %E' | sort -u)
  reasons=$(sinfo -h -R -o '%N %E' | grep -i angara)
  if ! echo "$states" | grep -qi 'drain\|down' && [ -z "$reasons" ]; then
    ok "$1: no node drained"
  else
    not_ok "$1: no node drained" "$states" "$reasons" \
      "$(new_log $(expand "$2") | grep spank-angara | grep -v 'spank-angara [0-9]' | tail -n 6 | cut -c1-300)"
    scontrol update nodename="$2" state=resume 2>/dev/null
    sinfo -h -R -o '%N' | while read -r n; do scontrol update nodename="$n" state=resume 2>/dev/null; done
  fi
}

# An untrusted path: the job requeued and held, AdminComment "angara: ..."
# naming PATH, the slurmd log says "untrusted" and PATH; no node drained.
expect_untrusted() {  # DESCRIPTION JOB NODES PATH
  local what=$1 job=$2 nodes=$3 path=$4 outcome log
  if [ -z "$job" ] || ! [[ $job =~ ^[0-9]+$ ]]; then
    not_ok "$what: submitted" "sbatch said: $job"
    return 1
  fi
  outcome=$(job_outcome "$job" 60)
  if [ "$outcome" = held ]; then
    ok "$what: job $job requeued and held"
  else
    not_ok "$what: job $job requeued and held" "outcome: $outcome"
  fi
  if admin_comment "$job" | grep -qF "$path" && admin_comment "$job" | grep -q '^angara: '; then
    ok "$what: AdminComment names $path"
  else
    not_ok "$what: AdminComment names $path" "AdminComment: $(admin_comment "$job")"
  fi
  log=$(new_log $(expand "$nodes"))
  if echo "$log" | grep 'untrusted' | grep -qF "$path"; then
    ok "$what: the slurmd log says $path is untrusted"
  else
    not_ok "$what: the slurmd log says $path is untrusted" "$(echo "$log" | grep spank-angara | tail -n 4)"
  fi
  local node installed=""
  for node in $(expand "$nodes"); do
    [ "$(table_field "$tables/$node.rt" job)" = "$job" ] && installed="$installed $node"
  done
  check "$what: no table of job $job installed${installed:+ (but on$installed)}" [ -z "$installed" ]
  settle "$job" "$nodes"
  no_drain "$what" "$nodes"
}

# Copies the job's table of every node into OUT (each node its own, inside the job).
copy_tables_step() {
  local out=$1
  echo "srun --ntasks-per-node=1 sh -c 'f=$tables/\$SLURMD_NODENAME.rt; grep -qx \"job \$SLURM_JOB_ID\" \$f && cp \$f $out/ && echo table-ok \$SLURMD_NODENAME \$(grep ^algorithm \$f)'"
}
user_dir() { mkdir -p "$1" && chown "$user:" "$1"; }

# The job's tables in OUT are the ALGORITHM routing 'angara-route generate'
# computes for NODES (byte-identical, job line included).
true_tables() {  # OUT JOB NODES ALGORITHM
  local gen=$work/gen-$2
  mkdir -p "$gen"
  "$tool" generate --config "$config" --nodes "$3" --algorithm "$4" --job-name "$2" --output "$gen" >/dev/null 2>&1 &&
    [ "$(ls "$1" | wc -l)" = "$(expand "$3" | wc -l)" ] && diff -r -x .angara "$gen" "$1" >/dev/null
}

# Forgeries of a shared result file (root's, readable: the user runs it too).
forge=$state/forge.py
cat >"$forge" <<'EOF'
import os, struct, sys, zlib
mode, src, dst = sys.argv[1:4]
data = open(src, 'rb').read()
at = data.find(b'\nrows\n')
if at < 0:
    sys.exit('no rows line in ' + src)
header, body = data[:at], data[at:]
if mode == 'header':          # another fingerprint and algorithm; rows and MAC kept
    lines = []
    for line in header.split(b'\n'):
        if line.startswith(b'fingerprint '):
            line = b'fingerprint ' + sys.argv[4].encode()
        elif line.startswith(b'algorithm '):
            line = b'algorithm ' + sys.argv[5].encode()
        lines.append(line)
    out = b'\n'.join(lines) + body
elif mode == 'rows':          # two route words swapped, the row's CRC fixed; MAC kept
    n = [int(l.split()[1]) for l in header.split(b'\n') if l.startswith(b'nodes ')][0]
    start, row = at + len(b'\nrows\n'), (n + 1) * 4
    out = bytearray(data)
    for r in range(n):
        base = start + r * row
        words = [out[base + 4 * d: base + 4 * d + 4] for d in range(n)]
        pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if a != r and b != r and words[a] != words[b]]
        if pairs:
            a, b = pairs[0]
            out[base + 4 * a: base + 4 * a + 4], out[base + 4 * b: base + 4 * b + 4] = words[b], words[a]
            out[base + 4 * n: base + 4 * n + 4] = struct.pack('<I', zlib.crc32(bytes(out[base: base + 4 * n])) & 0xffffffff)
            print('row %d: words %d and %d swapped, CRC fixed, %d bytes after the rows' % (r, a, b, len(data) - start - n * row))
            break
    else:
        sys.exit('no two different route words in a row')
    out = bytes(out)
else:                         # garbage under the right name
    out = b'angara-shared-tables 2\n' + os.urandom(200)
open(dst, 'wb').write(out)
EOF
chmod 0644 "$forge"

ANGARA_CLUSTER_USERS=1 ANGARA_SPANK_PLUGIN=$plugin ANGARA_PLUGSTACK_ARGS="config=$config" \
  "$here/cluster.sh" start "$state" || exit 99

# --- premises: the key, the user can submit, a trusted shared= works ----------
if "$tool" shared-key --output "$key" >"$work/key.out" 2>&1 && [ -s "$key" ] &&
  [ "$(stat -c '%U %a' "$key")" = "root 600" -o "$(stat -c '%U %a' "$key")" = "root 400" ]; then
  ok "angara-route shared-key --output wrote a root-owned 0600 key"
else
  not_ok "angara-route shared-key --output wrote a root-owned 0600 key" "$(cat "$work/key.out")" "$(ls -l "$key" 2>&1)"
fi
trusted=("config=$config" "shared=$shared" "shared_key=$key")
plugstack "${trusted[@]}"
echo "required $plugin ${trusted[*]}" >"$work/plugstack-trusted.conf"
"$tool" check --no-slurm --plugstack "$work/plugstack-trusted.conf" >"$work/check-trusted.txt" 2>&1
status=$?
if [ $status = 0 ] && ! grep -q '^error' "$work/check-trusted.txt"; then
  ok "check: the trusted setup (root-owned 0755 directories, 0600 key) has no error"
else
  not_ok "check: the trusted setup has no error" "exit $status" "$(grep -v '^ok' "$work/check-trusted.txt")"
fi
if grep -q "protected_symlinks" "$work/check-trusted.txt"; then
  ok "check reports fs.protected_symlinks ($(cat /proc/sys/fs/protected_symlinks 2>/dev/null) here)"
else
  not_ok "check reports fs.protected_symlinks" "$(cat "$work/check-trusted.txt")"
fi

nodes=desmos[20-23]
user_dir "$uhome/base"
log_mark
job=$(user_sbatch -w "$nodes" --angara-routing=lash -o "$uhome/base.out" --wrap "$(copy_tables_step "$uhome/base")" 2>&1)
outcome=$(job_outcome "$job" 90)
if [ "$outcome" = completed ] && [ "$(job_field "$job" UserId | sed 's/(.*//')" = "$user" ]; then
  ok "premise: $user's lash job $job on $nodes completed (trusted shared= with a key)"
else
  not_ok "premise: $user's lash job on $nodes completed" "sbatch: $job; outcome: $outcome" "$(new_log desmos20 | grep spank-angara | tail -3)"
fi
fp_lash=$(new_log $(expand "$nodes") | sed -n "s|.*job $job: .*shared as $shared/\([0-9a-f]*\)\.shared.*|\1|p" | head -n 1)
check "premise: the lash job published $shared/<fingerprint>.shared" [ -n "$fp_lash" -a -f "$shared/$fp_lash.shared" ]
if [ -n "$fp_lash" ] && head -n 1 "$shared/$fp_lash.shared" | grep -qx 'angara-shared-tables 2'; then
  ok "premise: the shared result is format 'angara-shared-tables 2'"
else
  not_ok "premise: the shared result is format 'angara-shared-tables 2'" "$(head -n 1 "$shared/$fp_lash.shared" 2>&1 | cut -c1-80)"
fi
check "premise: the job's 4 tables are lash's, as generate computes them" true_tables "$uhome/base" "$job" "$nodes" lash
cp "$shared/$fp_lash.shared" "$work/real-lash.shared" 2>/dev/null
settle "$job" "$nodes"
log_mark
job=$(user_sbatch -w "$nodes" -o /dev/null --wrap true 2>&1)
job_outcome "$job" 90 >/dev/null
fp_bfs=$(new_log $(expand "$nodes") | sed -n "s|.*job $job: .*shared as $shared/\([0-9a-f]*\)\.shared.*|\1|p" | head -n 1)
cp "$shared/$fp_bfs.shared" "$work/real-bfs.shared" 2>/dev/null
check "premise: a bfs job on $nodes published its own result" [ -n "$fp_bfs" -a -s "$work/real-bfs.shared" ]
settle "$job" "$nodes"
[ -n "$fp_lash" ] || fp_lash=unknown-fingerprint

# --- 1. a forged result in a user-writable shared directory -------------------
ushared=$state/ushared
user_dir "$ushared"
install -o "$user" -m 0644 "$work/real-bfs.shared" "$uhome/stolen.shared" 2>/dev/null
as_user python3 "$forge" header "$uhome/stolen.shared" "$ushared/$fp_lash.shared" "$fp_lash" lash
check "1: the user forged $ushared/$fp_lash.shared (bfs rows under lash's header)" [ -f "$ushared/$fp_lash.shared" ]
sums_before=$(cat "$tables"/desmos2[0-3].rt | md5sum)
plugstack "config=$config" "shared=$ushared" "shared_key=$key"
log_mark
job=$(user_sbatch -w "$nodes" --angara-routing=lash -o /dev/null --wrap true 2>&1)
expect_untrusted "1: user-writable shared directory" "$job" "$nodes" "$ushared"
check "1: nothing installed from it (the tables of $nodes unchanged)" [ "$(cat "$tables"/desmos2[0-3].rt | md5sum)" = "$sums_before" ]

# A forged file (wrong MAC) that root itself placed in the trusted directory.
forged_local() {  # DESCRIPTION MODE: the job completes on lash's true tables, "rejected" logged
  local what=$1 mode=$2 out
  out=$uhome/forged-$mode
  user_dir "$out"
  rm -f "$shared/$fp_lash.shared"
  if [ $mode = header ]; then
    python3 "$forge" header "$work/real-bfs.shared" "$shared/$fp_lash.shared" "$fp_lash" lash
  else
    comment "$(python3 "$forge" rows "$work/real-lash.shared" "$shared/$fp_lash.shared")"
  fi
  chown root: "$shared/$fp_lash.shared"
  chmod 0644 "$shared/$fp_lash.shared"
  plugstack "${trusted[@]}"
  log_mark
  job=$(user_sbatch -w "$nodes" --angara-routing=lash -o /dev/null --wrap "$(copy_tables_step "$out")" 2>&1)
  outcome=$(job_outcome "$job" 90)
  check "$what: job $job completed ($outcome)" [ "$outcome" = completed ]
  if new_log $(expand "$nodes") | grep -q "shared result.*rejected"; then
    ok "$what: the slurmd log says the shared result was rejected"
  else
    not_ok "$what: the slurmd log says the shared result was rejected" "$(new_log $(expand "$nodes") | grep spank-angara | tail -4)"
  fi
  check "$what: computed locally: the job's tables are lash's true ones" true_tables "$out" "$job" "$nodes" lash
  settle "$job" "$nodes"
  no_drain "$what" "$nodes"
}
forged_local "1: forged header, root-owned file in a trusted directory" header

# --- 2. forged rows with the CRC fixed ---------------------------------------
forged_local "2: forged rows, CRC fixed" rows

# --- 3 and 4. planted symbolic links ------------------------------------------
# In the trusted (root-owned) shared directory, planted by root.
link_target=/etc/angara-test-link-$$
hostname_sum=$(md5sum </etc/hostname)
rm -f "$shared/$fp_lash.lock" "$shared/$fp_lash.shared"
ln -s "$link_target" "$shared/$fp_lash.lock"
log_mark
job=$(user_sbatch -w "$nodes" --angara-routing=lash -o /dev/null --wrap true 2>&1)
outcome=$(job_outcome "$job" 90)
comment "3: job $job with FP.lock -> $link_target: $outcome; $(new_log $(expand "$nodes") | grep -c 'spank-angara') plugin lines"
settle "$job" "$nodes"
check "3: FP.lock a symlink to $link_target: the file was not created" [ ! -e "$link_target" ]
no_drain "3: FP.lock a symlink in the trusted directory" "$nodes"
rm -f "$shared/$fp_lash.lock" "$shared/$fp_lash.shared"
ln -s /etc/hostname "$shared/$fp_lash.shared"
log_mark
job=$(user_sbatch -w "$nodes" --angara-routing=lash -o /dev/null --wrap true 2>&1)
outcome=$(job_outcome "$job" 90)
check "4: FP.shared -> /etc/hostname in the trusted directory: job $job completed ($outcome)" [ "$outcome" = completed ]
settle "$job" "$nodes"
check "4: /etc/hostname unchanged" [ "$(md5sum </etc/hostname)" = "$hostname_sum" ]
no_drain "4: FP.shared a symlink in the trusted directory" "$nodes"
[ -L "$shared/$fp_lash.shared" ] && rm -f "$shared/$fp_lash.shared"

# In the user-writable shared directory, planted by the user.
link2=/etc/angara-test-link2-$$
as_user rm -f "$ushared/$fp_lash.shared" "$ushared/$fp_lash.lock"
as_user ln -s "$link2" "$ushared/$fp_lash.lock"
as_user ln -s /etc/hostname "$ushared/$fp_lash.shared"
plugstack "config=$config" "shared=$ushared" "shared_key=$key"
log_mark
job=$(user_sbatch -w "$nodes" --angara-routing=lash -o /dev/null --wrap true 2>&1)
expect_untrusted "3+4: the user's links in their shared directory" "$job" "$nodes" "$ushared"
check "3: the user's FP.lock link: $link2 not created" [ ! -e "$link2" ]
check "4: the user's FP.shared link: /etc/hostname unchanged" [ "$(md5sum </etc/hostname)" = "$hostname_sum" ]

# A table file as a link: in the trusted table directory (root planted it)...
tnodes=desmos[12-15]
rt_target=/etc/angara-test-rt-$$
rm -f "$tables/desmos12.rt"
ln -s "$rt_target" "$tables/desmos12.rt"
plugstack "config=$config"
log_mark
job=$(user_sbatch -w "$tnodes" -o /dev/null --wrap true 2>&1)
outcome=$(job_outcome "$job" 90)
comment "4: job $job with $tables/desmos12.rt -> $rt_target: $outcome"
settle "$job" "$tnodes"
check "4: a table file linked to $rt_target: the link not followed (not created)" [ ! -e "$rt_target" ]
no_drain "4: a table file a symlink in the trusted table directory" "$tnodes"
[ -L "$tables/desmos12.rt" ] && rm -f "$tables/desmos12.rt"
# ... and in a user-owned table directory (the user planted it).
utables=$state/utables
rt2=/etc/angara-test-rt2-$$
user_dir "$utables"
as_user ln -s "$rt2" "$utables/desmos12.rt"
plugstack "config=$config" "tables=$utables"
log_mark
job=$(user_sbatch -w "$tnodes" -o /dev/null --wrap true 2>&1)
expect_untrusted "4: the user's table directory with a linked table file" "$job" "$tnodes" "$utables"
check "4: the user's table link: $rt2 not created" [ ! -e "$rt2" ]
check "4: nothing but the user's link in their table directory" [ "$(ls -A "$utables")" = desmos12.rt ]

# --- 5. group/world-writable paths --------------------------------------------
unodes=desmos[24-25]
c5=$state/c5                       # config 0666, the user edits its table directory
mkdir -p "$c5" "$state/utarget"
chown "$user:" "$state/utarget"
sed "s|^  directory: .*|  directory: $tables|" "$config" >"$c5/angara.yaml"
chmod 0666 "$c5/angara.yaml"
d5=$state/d5                       # its directory 0777
mkdir -p "$d5"
cp "$config" "$d5/angara.yaml"
chmod 0777 "$d5"
t5=$state/t5                       # the table directory 0777
mkdir -p "$t5"
chmod 0777 "$t5"
s5=$state/s5                       # the shared directory 0777
mkdir -p "$s5"
chmod 0777 "$s5"
k5=$state/k5.key                   # the shared key readable by all
install -m 0644 "$key" "$k5"
u5=$state/u5.key                   # a key of the user's (who could then forge)
install -o "$user" -m 0600 "$key" "$u5"
cases=("$c5/angara.yaml|config=$c5/angara.yaml"
  "$k5|config=$config shared=$shared shared_key=$k5"
  "$u5|config=$config shared=$shared shared_key=$u5"
  "$d5|config=$d5/angara.yaml"
  "$t5|config=$config tables=$t5"
  "$s5|config=$config shared=$s5 shared_key=$key")
for entry in "${cases[@]}"; do
  path=${entry%%|*}
  args=${entry#*|}
  echo "required $plugin $args" >"$work/plugstack-5.conf"
  "$tool" check --no-slurm --plugstack "$work/plugstack-5.conf" >"$work/check-5.txt" 2>&1
  status=$?
  if [ $status != 0 ] && grep '^error' "$work/check-5.txt" | grep -qF "$path"; then
    ok "5: check: $path ($(stat -c "%U %a" "$path")) is an error, exit $status"
  else
    not_ok "5: check: $path ($(stat -c "%U %a" "$path")) is an error" "exit $status" "$(cat "$work/check-5.txt")"
  fi
  if [ "$path" = "$c5/angara.yaml" ]; then
    # The user points tables.directory at a directory of their own.
    as_user sh -c "sed 's|^  directory: .*|  directory: $state/utarget|' '$c5/angara.yaml' >'$uhome/edited.yaml' &&
      cat '$uhome/edited.yaml' >'$c5/angara.yaml'"
    check "5: the user edited tables.directory of the 0666 config" grep -q "directory: $state/utarget" "$c5/angara.yaml"
  fi
  # shellcheck disable=SC2086
  plugstack $args
  log_mark
  job=$(user_sbatch -w "$unodes" -o /dev/null --wrap true 2>&1)
  expect_untrusted "5: $path ($(stat -c "%U %a" "$path"))" "$job" "$unodes" "$path"
done
check "5: nothing written by root into the user's table directory" [ -z "$(ls -A "$state/utarget")" ]
check "5: nothing written into the 0777 table directory" [ -z "$(ls -A "$t5")" ]
check "5: nothing written into the 0777 shared directory" [ -z "$(ls -A "$s5")" ]
# An interactive job (srun) is cancelled instead of held.
plugstack "config=$config" "tables=$t5"
log_mark
output=$(cd "$uhome" && timeout 90 runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" srun -N2 -w "$unodes" touch "$uhome/srun-ran" 2>&1)
status=$?
check "5: srun under a 0777 table directory fails and its task never runs (exit $status)" [ $status -ne 0 -a ! -e "$uhome/srun-ran" ]
sleep 2
srun_job=$(squeue -h -u "$user" -o %i | head -n 1)
[ -n "$srun_job" ] && scancel "$srun_job"
# (The prologue logs the cancel after Slurm made it: waited for.)
says_cancelled() { new_log $(expand "$unodes") | grep -q 'cancel'; }
deadline=$((SECONDS + 15))
until says_cancelled || [ $SECONDS -ge $deadline ]; do sleep 0.5; done
if says_cancelled; then
  ok "5: srun's job cancelled (the slurmd log says so)"
else
  not_ok "5: srun's job cancelled" "$output" "$(new_log $(expand "$unodes") | grep spank-angara | tail -3)"
fi
deadline=$((SECONDS + 30))
while sinfo -h -N -n "$unodes" -o '%T' | grep -q comp && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
no_drain "5: srun under a 0777 table directory" "$unodes"
plugstack "config=$config"

# --- 6. ANGARA_* in the job's environment -------------------------------------
evil=$uhome/evil
user_dir "$evil"
user_dir "$evil/tables"
as_user sh -c "cat >'$evil/evil.yaml'" <<EOF
machine:
  torus: 4x2x2x2
  nodes: desmos[00-31]
routing:
  algorithm: lash
tables:
  directory: $evil/tables
EOF
as_user sh -c "printf '#!/bin/sh\ntouch $evil/scontrol-ran\nexec scontrol \"\$@\"\n' >'$evil/scontrol' && chmod 0755 '$evil/scontrol'"
enodes=desmos[26-27]
out=$uhome/env6
user_dir "$out"
log_mark
job=$(user_sbatch -w "$enodes" -o /dev/null \
  --export=ALL,ANGARA_CONFIG="$evil/evil.yaml",ANGARA_SCONTROL="$evil/scontrol",ANGARA_THREADS=100000,ANGARA_LOCK_TIMEOUT=0 \
  --wrap "$(copy_tables_step "$out")" 2>&1)
outcome=$(job_outcome "$job" 90)
check "6: job $job with ANGARA_CONFIG/SCONTROL/THREADS/LOCK_TIMEOUT set completed ($outcome)" [ "$outcome" = completed ]
if [ "$(cat "$out"/*.rt 2>/dev/null | grep -c '^algorithm bfs$')" = 2 ]; then
  ok "6: the job got the configured routing (bfs), not the evil config's lash"
else
  not_ok "6: the job got the configured routing (bfs)" "$(grep -h '^algorithm' "$out"/*.rt 2>&1)"
fi
check "6: the evil config's table directory stays empty" [ -z "$(ls -A "$evil/tables")" ]
check "6: ANGARA_SCONTROL's program never ran" [ ! -e "$evil/scontrol-ran" ]
settle "$job" "$enodes"
no_drain "6: ANGARA_* in the job's environment" "$enodes"

# --- 7. long and control-character --angara-routing values -------------------
# sbatch's stderr holds the plugin's message ("spank-angara: --angara-routing:
# ...") and Slurm's own ("Invalid --angara-routing argument: VALUE").
longest_run() { grep -o 'aaaa*' "$1" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }'; }
jobs_before=$(squeue -h | wc -l)
long=$(head -c 10240 /dev/zero | tr '\0' a)
(cd "$uhome" && as_user sbatch --angara-routing="$long" -o /dev/null --wrap true) >"$work/long.out" 2>&1
status=$?
grep 'spank-angara' "$work/long.out" >"$work/long.plugin"
check "7: a 10 kB --angara-routing is refused at submission (exit $status)" [ $status -ne 0 ]
if [ -s "$work/long.plugin" ] && [ "$(longest_run "$work/long.plugin")" -le 64 ]; then
  ok "7: the plugin's message echoes at most 64 bytes of the 10 kB value"
else
  not_ok "7: the plugin's message echoes at most 64 bytes of the 10 kB value" "$(head -c 300 "$work/long.plugin")"
fi
size=$(stat -c %s "$work/long.out")
if [ "$size" -lt 1024 ] && [ "$(longest_run "$work/long.out")" -le 64 ]; then
  ok "7: all of sbatch's stderr is under 1 kB ($size bytes), no more than 64 bytes of the value"
else
  not_ok "7: all of sbatch's stderr is under 1 kB, no more than 64 bytes of the value" \
    "$size bytes, a run of $(longest_run "$work/long.out") a's: $(grep -v spank-angara "$work/long.out" | head -c 200)..."
fi
esc=$(printf '\033')
bel=$(printf '\007')
(cd "$uhome" && as_user sbatch --angara-routing="$(printf 'lash\033[2J\033]0;owned\007x')" -o /dev/null --wrap true) >"$work/ctl.out" 2>&1
status=$?
grep 'spank-angara' "$work/ctl.out" >"$work/ctl.plugin"
check "7: a control-character --angara-routing is refused at submission (exit $status)" [ $status -ne 0 ]
if [ -s "$work/ctl.plugin" ] && ! grep -q "$esc\|$bel" "$work/ctl.plugin" && grep -qF 'lash\x1b[2J\x1b]0;owned\x07x' "$work/ctl.plugin"; then
  ok "7: the plugin's message shows the value escaped (\\x1b, \\x07), no raw control byte"
else
  not_ok "7: the plugin's message shows the value escaped, no raw control byte" "$(od -c "$work/ctl.plugin" | head -6)"
fi
size=$(stat -c %s "$work/ctl.out")
if [ "$size" -lt 1024 ] && ! grep -q "$esc\|$bel" "$work/ctl.out"; then
  ok "7: no raw ESC or BEL anywhere in sbatch's stderr ($size bytes)"
else
  not_ok "7: no raw ESC or BEL anywhere in sbatch's stderr" "$(grep -v spank-angara "$work/ctl.out" | od -c | head -6)"
fi
check "7: no job was submitted" [ "$(squeue -h | wc -l)" = "$jobs_before" ]

# --- 8. the authenticated shared result: one computation per 32-node job ------
plugstack "${trusted[@]}"
rm -f "$shared"/*
log_mark
job=$(user_sbatch -N32 -o /dev/null --wrap true 2>&1)
outcome=$(job_outcome "$job" 150)
check "8: $user's 32-node job $job with shared= and a key completed ($outcome)" [ "$outcome" = completed ]
all=$(expand 'desmos[00-31]')
# shellcheck disable=SC2086
new_log $all >"$work/log-32.txt"
computed=$(grep -c "spank-angara: job $job: .*; shared as " "$work/log-32.txt")
read_row=$(grep -c "spank-angara: job $job: .*shared result " "$work/log-32.txt")
check "8: one prologue computed ($computed), 31 read their row ($read_row)" [ "$computed" = 1 -a "$read_row" = 31 ]
check "8: the 31 rows read were authenticated" \
  [ "$(grep "spank-angara: job $job: .*shared result " "$work/log-32.txt" | grep -c '(authenticated)')" = 31 ]
cpu=$(sed -n "s/.*spank-angara: job $job: .*; prologue cpu \([0-9.]*\) s.*/\1/p" "$work/log-32.txt" |
  awk '{ sum += $1; n++; if ($1 > m) m = $1 } END { printf "%.4f s over %d prologues (largest %.4f s)", sum, n, m }')
start=$(date -d "$(job_field "$job" StartTime)" +%s 2>/dev/null)
stamps=$(grep "spank-angara: job $job: " "$work/log-32.txt" | sed -n 's/^\[\([0-9T:.-]*\)\].*/\1/p' |
  while read -r t; do date -d "${t/T/ }" +%s.%N; done | sort -n)
first=$(echo "$stamps" | head -n 1)
last=$(echo "$stamps" | tail -n 1)
wall=$(awk -v s="${start:-0}" -v f="${first:-0}" -v l="${last:-0}" 'BEGIN { printf "%.2f s from the job start to the last prologue line (%.3f s from the first to the last)", l - s, l - f }')
comment "prologue of the 32-node shared= job $job: cpu $cpu; wall $wall"
settle "$job" "desmos[00-31]"
no_drain "8: the 32-node shared= job" "desmos[00-31]"

echo "$passed passed, $failed failed"
if [ $failed -ne 0 ]; then
  echo "---- last spank-angara lines of the slurmd logs:"
  grep -h spank-angara "$state"/log/slurmd-*.log | tail -n 30 | cut -c1-400
fi
list_failed_checks
[ $failed -eq 0 ]
