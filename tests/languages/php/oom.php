<?php
// Keeps every 1 MiB block: past any limit.
$kept = [];
for (;;) $kept[] = str_repeat("x", 1 << 20);
