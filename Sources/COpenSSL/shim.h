#ifndef COACH_OPENSSL_SHIM_H
#define COACH_OPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/sha.h>
#endif
