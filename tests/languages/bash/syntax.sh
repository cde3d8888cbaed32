if true; then
  echo "missing fi"
