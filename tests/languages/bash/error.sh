set -e
false
echo "not reached"
