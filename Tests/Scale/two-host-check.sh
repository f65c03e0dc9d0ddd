#!/usr/bin/env bash
# Two "hosts" on one machine (issue 18): network namespaces coach-a and coach-b joined by a veth
# pair, an SSH server in coach-b, and `mpirun --host A:1,B:1` started in coach-a — what a cluster
# does, without a cluster. Trains an image classifier and an object detector over the two hosts
# and checks that the model bytes equal a single-host two-rank run's and a plain run's; then
# kills the rank on host B while it trains an action classifier data-parallel and resumes, and hides one photo from host B and checks
# that the job stops with an error naming it.
# Needs root, iproute2, openssh-server/-client and Open MPI (`make scale-check` installs them).
# Traffic stays on 10.77.0.0/24 inside the two namespaces; everything is torn down on exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
COACH=${COACH:-$PWD/.build/release/coach}
SUBNET=10.77.0.0/24 A=10.77.0.1 B=10.77.0.2
WORK=$(mktemp -d /tmp/coach-scale.XXXXXX)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[ "$(id -u)" = 0 ] || { echo "error: the two-host check makes network namespaces: run it as root" >&2; exit 1; }
for tool in ip /usr/sbin/sshd ssh ssh-keygen mpirun; do
  command -v "$tool" >/dev/null || { echo "error: $tool not found (make scale-check installs iproute2, openssh-server, openmpi-bin)" >&2; exit 1; }
done
[ -x "$COACH" ] || { echo "error: $COACH not built (make build)" >&2; exit 1; }

cleanup() {
  for pidfile in "$WORK"/sshd*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null || true; done
  ip netns del coach-a 2>/dev/null || true
  ip netns del coach-b 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cleanup_only_netns() { ip netns del coach-a 2>/dev/null || true; ip netns del coach-b 2>/dev/null || true; }
cleanup_only_netns

echo "==> two hosts: namespaces coach-a ($A) and coach-b ($B), joined by a veth pair"
ip netns add coach-a
ip netns add coach-b
ip link add coach-va type veth peer name coach-vb
ip link set coach-va netns coach-a
ip link set coach-vb netns coach-b
ip -n coach-a addr add $A/24 dev coach-va
ip -n coach-b addr add $B/24 dev coach-vb
for ns in coach-a coach-b; do
  ip -n $ns link set lo up
  ip -n $ns link set "coach-v${ns#coach-}" up
done

echo "==> an SSH server on $B, with a key made for this check"
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N "" -f "$WORK/host_key"
ssh-keygen -q -t ed25519 -N "" -f "$WORK/key"
cp "$WORK/key.pub" "$WORK/authorized_keys"
chmod 600 "$WORK/authorized_keys"
ip netns exec coach-b /usr/sbin/sshd -f /dev/null -h "$WORK/host_key" -o ListenAddress=$B -o PermitRootLogin=yes \
  -o AuthorizedKeysFile="$WORK/authorized_keys" -o StrictModes=no -o PidFile="$WORK/sshd.pid" -o UsePAM=no
cat > "$WORK/ssh-agent.sh" <<AGENT
#!/bin/sh
exec ssh -i "$WORK/key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR "\$@"
AGENT
chmod +x "$WORK/ssh-agent.sh"
for attempt in $(seq 50); do
  ip netns exec coach-a "$WORK/ssh-agent.sh" $B true 2>/dev/null && break
  sleep 0.1
done
ip netns exec coach-a "$WORK/ssh-agent.sh" $B true

MPI_TCP=(--mca btl self,tcp --mca btl_tcp_if_include $SUBNET --mca oob_tcp_if_include $SUBNET)
on_two_hosts() {  # on_two_hosts PROGRAM ARGS…: one rank on each host
  ip netns exec coach-a mpirun --allow-run-as-root --host $A:1,$B:1 -np 2 --mca plm_rsh_agent "$WORK/ssh-agent.sh" \
    "${MPI_TCP[@]}" -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x PATH -x COACH_SCALE_JOB "$@"
}
export COACH_SCALE_JOB=none
two_hosts() { on_two_hosts "$COACH" "$@"; }
one_host() { mpirun --allow-run-as-root --oversubscribe -np 2 "$COACH" "$@"; }

echo "==> where the ranks run (each namespace's own address):"
placement=$(on_two_hosts sh -c 'echo "rank $OMPI_COMM_WORLD_RANK: $(ip -o -4 addr show scope global | awk "{print \$4}")"' | sort)
echo "$placement" | sed 's/^/    /'
[ "$(echo "$placement" | grep -c "$A/24\|$B/24")" = 2 ] && echo "$placement" | grep -q "$A/24" && echo "$placement" | grep -q "$B/24" \
  || { echo "error: the two ranks did not run one on each host" >&2; exit 1; }

"$COACH" generate-samples --output "$WORK/samples" --only sports-gear >/dev/null
fail=0
check() {  # check NAME ARGS… : plain, one host × 2 ranks, two hosts × 1 rank each; same bytes
  local name=$1; shift
  mkdir -p "$WORK/$name"/{plain,one-host,two-hosts}
  echo "==> $name: a plain run, 2 ranks on one host, 1 rank on each of two hosts"
  "$COACH" "$@" --output "$WORK/$name/plain/model.h5" >/dev/null 2>"$WORK/$name/plain.log"
  one_host "$@" --output "$WORK/$name/one-host/model.h5" >/dev/null 2>"$WORK/$name/one-host.log"
  local start=$SECONDS
  two_hosts "$@" --output "$WORK/$name/two-hosts/model.h5" >/dev/null 2>"$WORK/$name/two-hosts.log" \
    || { cat "$WORK/$name/two-hosts.log" >&2; fail=1; return; }
  echo "    two hosts: $((SECONDS - start)) s"
  sha256sum "$WORK/$name"/*/model.h5 | sed "s|$WORK/||; s|^|    |"
  if [ "$(sha256sum "$WORK/$name"/*/model.h5 | cut -d' ' -f1 | sort -u | wc -l)" = 1 ]; then
    echo "    $name: the same model bytes on one process, one host and two hosts"
  else
    echo "    $name: MODEL BYTES DIFFER" >&2; fail=1
  fi
}
check image-classifier train image-classifier --data "$WORK/samples/sports-gear" --no-feature-cache --augment flip --seed 1
check object-detector train object-detector --annotations datasets/cornhole/train/annotations.json --views-per-image 2 \
  --max-iterations 40 --seed 1
echo "==> rank 1 killed on host B while training: the job ends in seconds naming it; --resume finishes it"
# The action classifier trains data-parallel: both ranks work (and hold the minibatch) until the end.
NATOPS=${COACH_SHARED:-../shared}/data/natops/train
[ -d "$NATOPS" ] || { echo "error: $NATOPS is missing (set COACH_SHARED to the shared data folder)" >&2; exit 1; }
killed_args=(train action-classifier --data "$NATOPS" --max-iterations 40 --patience 100 --seed 3)
mkdir -p "$WORK/killed" "$WORK/killed-reference"
one_host "${killed_args[@]}" --output "$WORK/killed-reference/model.h5" >/dev/null 2>&1
( if COACH_SCALE_JOB=$$-killed two_hosts "${killed_args[@]}" --output "$WORK/killed/model.h5" >/dev/null 2>"$WORK/killed.log"
  then echo 0; else echo $?; fi > "$WORK/killed.status" ) &
job=$!
for attempt in $(seq 3000); do [ -e "$WORK/killed/model.checkpoint.h5" ] || [ -s "$WORK/killed.status" ] && break; sleep 0.1; done
victim=""
for environ in /proc/[0-9]*/environ; do
  if grep -qzx "COACH_SCALE_JOB=$$-killed" "$environ" 2>/dev/null && grep -qzx "OMPI_COMM_WORLD_RANK=1" "$environ" 2>/dev/null; then
    victim=$(basename "$(dirname "$environ")"); break
  fi
done
if [ -z "$victim" ]; then
  echo "    rank 1 not found on host B (the job ended first?)" >&2; cat "$WORK/killed.log" >&2; fail=1
else
  start=$SECONDS
  kill -KILL "$victim"
  wait $job || true
  took=$((SECONDS - start))
  if [ "$(cat "$WORK/killed.status")" = 0 ] || [ $took -gt 30 ] || ! grep -q "rank 1" "$WORK/killed.log" || [ -e "$WORK/killed/model.h5" ]; then
    cat "$WORK/killed.log" >&2; echo "    the killed job did not end cleanly (status $(cat "$WORK/killed.status"), $took s)" >&2; fail=1
  else
    echo "    ended in $took s with status $(cat "$WORK/killed.status"): $(grep -m1 'rank 1' "$WORK/killed.log" | sed 's/^ *//' | cut -c1-140)"
    two_hosts "${killed_args[@]}" --output "$WORK/killed/model.h5" --resume >/dev/null 2>"$WORK/resumed.log" \
      || { cat "$WORK/resumed.log" >&2; fail=1; }
    if cmp -s "$WORK/killed/model.h5" "$WORK/killed-reference/model.h5"; then
      echo "    --resume on the two hosts: $(grep -m1 'resuming from' "$WORK/resumed.log" | cut -c1-100); the bytes of an uninterrupted two-rank run"
    else
      echo "    the resumed model differs from an uninterrupted two-rank run" >&2; fail=1
    fi
  fi
fi

echo "==> a photo missing on host B only: a clear error on every rank, no hang, no model"
# A second SSH server on B, in a mount namespace of its own where one photo of ball/ is missing.
first=$(ls "$WORK/samples/sports-gear/train/ball" | head -1)
cp -a "$WORK/samples/sports-gear/train/ball" "$WORK/ball-on-b"
rm "$WORK/ball-on-b/$first"
ip netns exec coach-b unshare -m --propagation private sh -c \
  "mount --bind '$WORK/ball-on-b' '$WORK/samples/sports-gear/train/ball' && exec /usr/sbin/sshd -f /dev/null -h '$WORK/host_key' \
   -o ListenAddress=$B -o Port=2222 -o PermitRootLogin=yes -o AuthorizedKeysFile='$WORK/authorized_keys' -o StrictModes=no \
   -o PidFile='$WORK/sshd-2.pid' -o UsePAM=no"
sed 's/ssh -i/ssh -p 2222 -i/' "$WORK/ssh-agent.sh" > "$WORK/ssh-agent-2.sh"
chmod +x "$WORK/ssh-agent-2.sh"
for attempt in $(seq 50); do ip netns exec coach-a "$WORK/ssh-agent-2.sh" $B true 2>/dev/null && break; sleep 0.1; done
mkdir -p "$WORK/missing"
start=$SECONDS
if ip netns exec coach-a mpirun --allow-run-as-root --host $A:1,$B:1 -np 2 --mca plm_rsh_agent "$WORK/ssh-agent-2.sh" \
     "${MPI_TCP[@]}" -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x PATH "$COACH" train image-classifier \
     --data "$WORK/samples/sports-gear/train" --no-feature-cache --output "$WORK/missing/model.h5" >/dev/null 2>"$WORK/missing.log"; then
  echo "    the job succeeded although host B lacks ball/$first" >&2; fail=1
elif grep -q "not on rank 1: ball/$first" "$WORK/missing.log" && [ ! -e "$WORK/missing/model.h5" ]; then
  echo "    ended in $((SECONDS - start)) s: $(grep -m1 'do not see the same' "$WORK/missing.log" | cut -c1-160)…"
else
  cat "$WORK/missing.log" >&2; echo "    no clear error about the missing photo" >&2; fail=1
fi
kill "$(cat "$WORK/sshd-2.pid")" 2>/dev/null || true

[ $fail = 0 ] && echo "two-host check: passed" || { echo "two-host check: FAILED" >&2; exit 1; }
