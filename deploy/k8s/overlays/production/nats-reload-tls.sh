# The reloader beside each NATS server (nats.yaml): nats-server reads its certificate only at start
# and on a reload signal, and cert-manager renews nats-tls 30 days before it expires. The kubelet
# swaps the mounted Secret's files in one step; once they differ from what the server last loaded,
# this tells it to reload (the pod shares one process namespace, so the pid file names it). Polling,
# not inotify: the swap replaces a symlink, and a poll never misses it.
# NATS_TLS_DIR, NATS_PID_FILE, RELOAD_INTERVAL_SECONDS come from the container's env.
set -u
fingerprint() { cat "$NATS_TLS_DIR/tls.crt" "$NATS_TLS_DIR/tls.key" | sha256sum; }
loaded=$(fingerprint)
echo "watching $NATS_TLS_DIR every ${RELOAD_INTERVAL_SECONDS}s"
while sleep "$RELOAD_INTERVAL_SECONDS"; do
  current=$(fingerprint) || continue
  [ "$current" = "$loaded" ] && continue
  echo "the certificate in $NATS_TLS_DIR changed: reloading nats-server"
  # A signal that cannot be sent (the server is restarting) is tried again at the next look.
  nats-server --signal "reload=$NATS_PID_FILE" && loaded=$current
done
