#!/bin/sh
printf '[%s]\n' "$@"
