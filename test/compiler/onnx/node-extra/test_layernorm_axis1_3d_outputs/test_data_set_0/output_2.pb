BrstdJ
ˆ?a2X?