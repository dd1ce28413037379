module memsched

go 1.26
