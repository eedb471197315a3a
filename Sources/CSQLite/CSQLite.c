// A C target needs a source file; everything CSQLite offers is declared in include/CSQLite.h.
#include "CSQLite.h"
