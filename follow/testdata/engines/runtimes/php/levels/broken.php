<?php
// A level whose data does not parse: a comma is missing.
$spawns = ['orc' => 3 'troll' => 4]; // CRASH:parse
