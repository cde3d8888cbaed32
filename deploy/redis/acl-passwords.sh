#!/bin/sh
# acl-passwords.sh ACLFILE > OUT: a copy of ACLFILE (deploy/redis/users.acl)
# in which each user NAME whose password is in the environment gets it, as
# a SHA-256 hash (the password itself is never written):
#   gradeq-admin   GRADEQ_ADMIN_PASSWORD
#   gradeq-worker  GRADEQ_WORKER_PASSWORD
#   gradeq-client  GRADEQ_CLIENT_PASSWORD
#   gradeq-monitor GRADEQ_MONITOR_PASSWORD
# Users without one keep `resetpass` and cannot log in. Needs sha256sum.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 ACLFILE > OUT" >&2; exit 2; }
while IFS= read -r line; do
    case $line in
    "user "*)
        name=${line#user }; name=${name%% *}
        var=$(echo "GRADEQ_${name#gradeq-}_PASSWORD" | tr 'a-z-' 'A-Z_')
        pw=$(printenv "$var" || true)
        if [ -n "$pw" ]; then
            hash=$(printf '%s' "$pw" | sha256sum | cut -d' ' -f1)
            line="$line #$hash"
        fi ;;
    esac
    printf '%s\n' "$line"
done < "$1"
