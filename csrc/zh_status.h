/* Status codes of the csrc/ kernels. zarrhpc/errors.py maps them to exceptions. */
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

#endif
