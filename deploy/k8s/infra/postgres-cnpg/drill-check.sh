#!/bin/bash
# The restore drill's check (drill-schedule.yaml, container `check`): docex-postgres-drill, recovered to
# TARGET_TIME, against the live Cluster. For every service's database: the same migrations; for documents:
# every document the live database has from before the target is in the drill (the live one may have
# deleted some since, so the drill may have more), and none from after it (the recovery stopped there).
# Prints one line per database and exits 1 on any difference.
#   LIVE, DRILL            libpq connection settings of each server, without dbname and user
#   SERVICES               the services with a database docex_<service>, owned by the role docex_<service>
#   PASSWORD_DIR           one file per service holding its role's password (unset: libpq's own sources)
#   TARGET_TIME            the recovery target, a timestamptz
#   DATABASE_PREFIX        docex_ (tests give the drill's databases another prefix on the same server)
#   DRILL_DATABASE_PREFIX  the drill's, when it differs
set -uo pipefail
live_prefix=${DATABASE_PREFIX:-docex_}
drill_prefix=${DRILL_DATABASE_PREFIX:-$live_prefix}

query() { # connection prefix service sql
  local password=""
  [ -n "${PASSWORD_DIR:-}" ] && password=$(cat "$PASSWORD_DIR/$3")
  PGPASSWORD=${password:-${PGPASSWORD:-}} psql "$1 dbname=$2$3 user=${PGUSER_OVERRIDE:-docex_$3}" \
    --no-psqlrc --tuples-only --no-align --quiet --set ON_ERROR_STOP=1 --command "$4"
}

failed=0
for service in $SERVICES; do
  sql="select count(*) from schema_migrations"
  live=$(query "$LIVE" "$live_prefix" "$service" "$sql") || { echo "docex_$service: the live database did not answer"; failed=1; continue; }
  drill=$(query "$DRILL" "$drill_prefix" "$service" "$sql") || { echo "docex_$service: missing from the drill"; failed=1; continue; }
  if [ "$live" != "$drill" ]; then
    echo "docex_$service: $drill migrations in the drill, $live live"; failed=1
  else
    echo "docex_$service: $drill migrations, as live"
  fi
  if [ "$service" = document ]; then
    before="select count(*) from documents where created_at <= '$TARGET_TIME'::timestamptz"
    after="select count(*) from documents where created_at > '$TARGET_TIME'::timestamptz"
    live_before=$(query "$LIVE" "$live_prefix" "$service" "$before") || { failed=1; continue; }
    drill_before=$(query "$DRILL" "$drill_prefix" "$service" "$before") || { failed=1; continue; }
    drill_after=$(query "$DRILL" "$drill_prefix" "$service" "$after") || { failed=1; continue; }
    if [ "$drill_before" -lt "$live_before" ] || [ "$drill_after" -ne 0 ]; then
      echo "docex_document: $drill_before documents up to $TARGET_TIME in the drill, $live_before live; $drill_after after it in the drill"
      failed=1
    else
      echo "docex_document: $drill_before documents up to $TARGET_TIME ($live_before live), none after"
    fi
  fi
done
[ "$failed" = 0 ] && echo "restore drill passed: recovered to $TARGET_TIME"
exit "$failed"
