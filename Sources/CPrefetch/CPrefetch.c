// The target is header-only (`cpf_prefetch` is inlined where it is used);
// SwiftPM needs one source file to build a C target.
#include "CPrefetch.h"
