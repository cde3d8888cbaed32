<?php
// 1 GiB in 1 MiB blocks, one alive at a time.
$alive = "";
for ($i = 0; $i < 1024; $i++) $alive = str_repeat(chr($i % 256), 1 << 20);
echo "done ", strlen($alive), "\n";
