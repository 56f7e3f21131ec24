/* Status codes of the csrc/ kernels. zarrhpc/errors.py maps them to exceptions. */
#ifndef ZH_STATUS_H
#define ZH_STATUS_H

#define ZH_OK 0
#define ZH_ERR_SHAPE 1
#define ZH_ERR_ITEMSIZE 2
#define ZH_ERR_BOUNDS 3
#define ZH_ERR_NDIM 4

#define ZH_MAX_DIMS 64

#endif
