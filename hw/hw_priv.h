/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files of libhw (device, UAT, MMU, firmware) and
 * by the executors in hw/ (hw/cdm/ may include it). Not for the kernel.
 */
#ifndef HW_PRIV_H
#define HW_PRIV_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "hw/hw_device.h"
#include "hw/hw_fw.h"

struct hw_fw;

struct hw_executor {
   hw_exec_fn fn;
   void *data;
};

struct hw_device {
   struct hw_device_config cfg;
   struct hw_device_info info;

   uint8_t *mem;                /* shared anonymous, never moves */
   uint64_t mem_size;
   uint64_t npages;

   pthread_mutex_t phys_lock;
   uint64_t *phys_bitmap;       /* 1 = allocated */
   uint64_t phys_hint;          /* next-fit start (page index) */
   uint64_t phys_free;

   _Atomic uint64_t fault_info; /* packed Fault Info; 0 = none */
   _Atomic uint32_t tlb_gen;
   _Atomic uint64_t ttbat;
   _Atomic uint64_t cycles;

   int irq_fd;

   pthread_mutex_t lock;        /* executors, last_error, fw lifetime */
   struct hw_executor exec[HW_FW_PIPES];
   char last_error[192];
   /* The messages of the latest failed jobs by job ID: a render's vertex
    * and fragment jobs fail one after the other, and the kernel reads the
    * message when it handles the first one's event, after the second has
    * replaced last_error (hw_device_job_error). */
   struct {
      uint32_t job_id;
      bool used;
      char msg[192];
   } job_err[16];
   unsigned job_err_next;

   struct hw_fw *fw;
};

void hw_set_error(struct hw_device *dev, const char *fmt, ...)
   __attribute__((format(printf, 2, 3)));
/* hw_set_error, and remembered as job job_id's message. */
void hw_set_job_error(struct hw_device *dev, uint32_t job_id, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));

/* Latches a fault into FAULT_INFO unless one is already there. */
void hw_latch_fault(struct hw_device *dev, const struct hw_fault *f);
uint64_t hw_fault_info_pack(const struct hw_fault *f);

/* Raises the interrupt (callback + eventfd). */
void hw_raise_irq(struct hw_device *dev);

uint64_t hw_now_ns(void);

#endif
