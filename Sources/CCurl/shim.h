#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <curl/curl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* curl_easy_setopt is variadic, which Swift cannot call: one typed wrapper
   per kind of argument metrika passes. */

static inline CURLcode metrika_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode metrika_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode metrika_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode metrika_curl_set_write_function(CURL *handle, CURLoption option, curl_write_callback function) {
    return curl_easy_setopt(handle, option, function);
}

static inline CURLcode metrika_curl_set_xferinfo_function(CURL *handle, curl_xferinfo_callback function) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}

static inline CURLcode metrika_curl_set_read_function(CURL *handle, curl_read_callback function) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, function);
}

static inline size_t metrika_curl_read_abort(void) {
    return CURL_READFUNC_ABORT;
}

/* Only http and https, for the request and any redirect (metrika follows none): libcurl 7.85 and later
   take the names, older ones (Ubuntu 22.04 has 7.81) the bitmask their headers still offer. */
static inline CURLcode metrika_curl_allow_http_only(CURL *handle) {
#ifdef CURLOPT_PROTOCOLS_STR
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    if (code == CURLE_OK) { code = curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"); }
    return code;
#else
    CURLcode code = curl_easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (code == CURLE_OK) { code = curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)); }
    return code;
#endif
}

/* The socket libcurl is about to connect (after its own name lookup): its numeric address, for a
   check of where a request may go (a client ID metadata document never goes to a private address). */
static inline CURLcode metrika_curl_set_opensocket_function(CURL *handle, curl_opensocket_callback function) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, function);
}

/* The numeric text of the address of `address` (AF_INET or AF_INET6) into `buffer`; 0 on success. */
static inline int metrika_curl_sockaddr_text(const struct curl_sockaddr *address, char *buffer, socklen_t size) {
    const void *bytes = 0;
    if (address->family == AF_INET) {
        bytes = &((const struct sockaddr_in *)(const void *)&address->addr)->sin_addr;
    } else if (address->family == AF_INET6) {
        bytes = &((const struct sockaddr_in6 *)(const void *)&address->addr)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->family, bytes, buffer, size) ? 0 : -1;
}

static inline curl_socket_t metrika_curl_socket_bad(void) {
    return CURL_SOCKET_BAD;
}

static inline CURLcode metrika_curl_global_init(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

static inline int metrika_curl_error_size(void) {
    return CURL_ERROR_SIZE;
}
#endif
