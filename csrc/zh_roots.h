/* Store roots kept open between engine calls (see zh_roots.c for the measurements). */
#ifndef ZH_ROOTS_H
#define ZH_ROOTS_H

#include <stddef.h>

/* An O_PATH descriptor of the directory `root` (root_len bytes, not NUL-terminated),
 * from the process-wide cache, checked against the path (see zh_roots.c); *slot says
 * how to give it back.  -1 with errno when the root cannot be opened. */
int zh_root_get(const char *root, size_t root_len, int *slot);

/* Give back a descriptor from zh_root_get. */
void zh_root_put(int fd, int slot);

/* A chunk was not found through `fd` (from zh_root_get): is the directory at the path
 * still that one?  Yes: -1 (fd and *slot stay the caller's; the answer stands).  No: a
 * fresh descriptor to retry with, its slot in *slot (fd is given back). */
int zh_root_recheck(const char *root, size_t root_len, int fd, int *slot);

#endif
