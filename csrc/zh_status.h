/* Status codes of the csrc/ kernels, the temporary-file name pattern and the chunk key
 * kinds: the one place for these facts. zarrhpc/_kernels/engine.pyx exposes them to
 * Python (cdef extern); zarrhpc/errors.py maps the status codes to exceptions. */
#ifndef ZH_STATUS_H
#define ZH_STATUS_H

#define ZH_OK 0
#define ZH_ERR_SHAPE 1
#define ZH_ERR_ITEMSIZE 2
#define ZH_ERR_BOUNDS 3
#define ZH_ERR_NDIM 4
#define ZH_ERR_CORRUPT 5   /* a stored chunk cannot be decoded */
#define ZH_ERR_IO 6        /* a system call failed (errno in the message) */
#define ZH_FALLBACK 7      /* the native engine cannot do this chunk: use Python */
#define ZH_ERR_NOMEM 8
#define ZH_ERR_CODEC 9     /* encoding failed */
#define ZH_ERR_STORE 10    /* the store's layout is in the way (a value where a prefix is) */

#define ZH_MAX_DIMS 64

/* LocalStore's temporary file names: ZH_TMP_PREFIX <unique> ZH_TMP_SUFFIX, then rename */
#define ZH_TMP_PREFIX ".zhtmp-"
#define ZH_TMP_SUFFIX ".partial"

/* chunk key kinds the engine builds file names for (zh_job_t.key_kind) */
#define ZH_KEY_DEFAULT 0   /* v3 "default": "c" sep c0 sep c1 ... */
#define ZH_KEY_V2 1        /* v2: c0 sep c1 ... ("0" for 0-d) */

#endif
