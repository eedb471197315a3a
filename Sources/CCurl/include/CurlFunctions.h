// libcurl's functions and constant macros as Courier uses them, declared as curl.h, easy.h and
// multi.h (7.88) declare them. Kept apart from CurlTypes.h so that `.ci/check-c-declarations`
// can include this file after the real headers: any declaration or macro that differs is then
// a compiler error.
#ifndef COURIER_CURL_FUNCTIONS_H
#define COURIER_CURL_FUNCTIONS_H

#define CURL_ERROR_SIZE 256
#define CURL_WRITEFUNC_PAUSE 0x10000001
#define CURL_READFUNC_ABORT 0x10000000
#define CURL_READFUNC_PAUSE 0x10000001
#define CURL_SEEKFUNC_OK       0
#define CURL_SEEKFUNC_FAIL     1
#define CURL_SEEKFUNC_CANTSEEK 2
#define CURL_GLOBAL_SSL (1<<0)
#define CURL_GLOBAL_WIN32 (1<<1)
#define CURL_GLOBAL_ALL (CURL_GLOBAL_SSL|CURL_GLOBAL_WIN32)
#define CURLPAUSE_RECV      (1<<0)
#define CURLPAUSE_RECV_CONT (0)
#define CURLPAUSE_SEND      (1<<2)
#define CURLPAUSE_SEND_CONT (0)
#define CURLPAUSE_CONT      (CURLPAUSE_RECV_CONT|CURLPAUSE_SEND_CONT)
#define CURLPIPE_MULTIPLEX 2L
#define CURL_SOCKET_BAD -1
#define CURL_WAIT_POLLIN    0x0001
#define CURL_WAIT_POLLOUT   0x0004
#define CURL_POLL_NONE   0
#define CURL_POLL_IN     1
#define CURL_POLL_OUT    2
#define CURL_POLL_INOUT  3
#define CURL_POLL_REMOVE 4

CURLcode curl_global_init(long flags);
const char *curl_easy_strerror(CURLcode);

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *data);
void curl_slist_free_all(struct curl_slist *list);

CURL *curl_easy_init(void);
CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...);
CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...);
void curl_easy_reset(CURL *curl);
void curl_easy_cleanup(CURL *curl);
CURLcode curl_easy_pause(CURL *handle, int bitmask);
CURLcode curl_easy_recv(CURL *curl, void *buffer, size_t buflen, size_t *n);
CURLcode curl_easy_send(CURL *curl, const void *buffer, size_t buflen, size_t *n);

CURLM *curl_multi_init(void);
CURLMcode curl_multi_setopt(CURLM *multi_handle, CURLMoption option, ...);
CURLMcode curl_multi_add_handle(CURLM *multi_handle, CURL *curl_handle);
CURLMcode curl_multi_remove_handle(CURLM *multi_handle, CURL *curl_handle);
CURLMcode curl_multi_perform(CURLM *multi_handle, int *running_handles);
CURLMcode curl_multi_poll(CURLM *multi_handle, struct curl_waitfd extra_fds[], unsigned int extra_nfds,
                          int timeout_ms, int *ret);
CURLMcode curl_multi_wakeup(CURLM *multi_handle);
CURLMcode curl_multi_timeout(CURLM *multi_handle, long *milliseconds);
CURLMsg *curl_multi_info_read(CURLM *multi_handle, int *msgs_in_queue);
CURLMcode curl_multi_cleanup(CURLM *multi_handle);

#endif
