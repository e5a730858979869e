#!/bin/bash
echo "bash ran"
