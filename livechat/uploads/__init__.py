"""The chatbox's file upload (/servlet/fileupload): files a visitor sends to the operator."""
