<?php
echo "missing semicolon"
echo "here";
