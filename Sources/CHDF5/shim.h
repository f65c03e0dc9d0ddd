#ifndef COACH_HDF5_SHIM_H
#define COACH_HDF5_SHIM_H
#include <hdf5.h>

/* HDF5's constants are macros that expand to global ids after H5open(); Swift cannot
   import them, so each is wrapped in a static inline function. */
static inline hid_t coach_H5P_DEFAULT(void) { return H5P_DEFAULT; }
static inline hid_t coach_H5P_FILE_ACCESS(void) { H5open(); return H5P_FILE_ACCESS; }
static inline hid_t coach_H5P_DATASET_CREATE(void) { H5open(); return H5P_DATASET_CREATE; }
static inline hid_t coach_H5P_FILE_CREATE(void) { H5open(); return H5P_FILE_CREATE; }
static inline hid_t coach_H5P_GROUP_CREATE(void) { H5open(); return H5P_GROUP_CREATE; }
static inline hid_t coach_H5P_ATTRIBUTE_CREATE(void) { H5open(); return H5P_ATTRIBUTE_CREATE; }
static inline hid_t coach_H5E_DEFAULT(void) { return H5E_DEFAULT; }
static inline hid_t coach_H5P_LINK_CREATE(void) { H5open(); return H5P_LINK_CREATE; }
static inline hid_t coach_H5T_NATIVE_FLOAT(void) { H5open(); return H5T_NATIVE_FLOAT; }
static inline hid_t coach_H5T_NATIVE_INT64(void) { H5open(); return H5T_NATIVE_INT64; }
static inline hid_t coach_H5T_IEEE_F32LE(void) { H5open(); return H5T_IEEE_F32LE; }
static inline hid_t coach_H5T_STD_I64LE(void) { H5open(); return H5T_STD_I64LE; }
static inline hid_t coach_H5T_C_S1(void) { H5open(); return H5T_C_S1; }
static inline hid_t coach_H5S_ALL(void) { return H5S_ALL; }
static inline unsigned coach_H5F_ACC_TRUNC(void) { return H5F_ACC_TRUNC; }
static inline unsigned coach_H5F_ACC_EXCL(void) { return H5F_ACC_EXCL; }
static inline unsigned coach_H5F_ACC_RDONLY(void) { return H5F_ACC_RDONLY; }
static inline size_t coach_H5T_VARIABLE(void) { return H5T_VARIABLE; }

/* Silence HDF5's default error printing to stderr: Coach reports typed errors itself. */
static inline void coach_H5_silence_errors(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }
#endif
